#include <stdio.h>

/* Waits to read before writing anything: the pair deadlocks until the wall limit. */
int main(void) {
    char s[16];
    if (scanf("%15s", s) == 1) printf("%s\n", s);
    return 0;
}
