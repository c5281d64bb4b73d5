/* Touches 100 MiB and keeps it, for peak-memory accuracy tests. */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    size_t n = 100u << 20;
    volatile char *p = malloc(n);
    unsigned long sum = 0;
    if (!p) return 3;
    for (size_t i = 0; i < n; i += 4096) p[i] = 1;
    for (size_t i = 0; i < n; i += 4096) sum += p[i];
    printf("%lu\n", sum);
    return 0;
}
