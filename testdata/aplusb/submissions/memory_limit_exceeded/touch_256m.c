/* Touches 256 MiB page by page (the limit is 64 MiB); volatile keeps the compiler honest. */
#include <stdlib.h>
#include <stdio.h>
int main(void) {
    size_t n = 256u << 20;
    volatile char *p = malloc(n);
    unsigned long sum = 0;
    if (!p) return 3;
    for (size_t i = 0; i < n; i += 4096) p[i] = 1;
    for (size_t i = 0; i < n; i += 4096) sum += p[i];
    printf("%lu\n", sum);
    return 0;
}
