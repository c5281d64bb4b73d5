/* Pass 1 is fast; pass 2 spins: each pass has the time limit of its own. */
#include <stdio.h>
int main(void) {
    char mode[16];
    long long v;
    if (scanf("%15s %lld", mode, &v) != 2) return 1;
    if (mode[0] == 'd') {
        volatile unsigned long long x = 0;
        for (;;) x++;
    }
    printf("%lld\n", v + 1);
    return 0;
}
