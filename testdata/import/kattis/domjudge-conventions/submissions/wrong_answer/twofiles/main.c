/* Two files make one program: ojd judges single-file programs, so the import skips it. */
int twice(int n);
#include <stdio.h>
int main(void) { int n; scanf("%d", &n); printf("%d\n", twice(n)); return 0; }
