/* Two files make one program, compiled together; doubling overflows an int (WA). */
int twice(int n);
#include <stdio.h>
int main(void) { int n; scanf("%d", &n); printf("%d\n", twice(n)); return 0; }
