/* A fixed amount of CPU work (about 200 ms here), for CPU-time accuracy tests. */
#include <stdio.h>
int main(void) {
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < 450000000UL; i++) x += i;
    printf("%lu\n", (unsigned long)(x & 1));
    return 0;
}
