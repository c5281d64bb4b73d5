/* Runs out of memory: allocates and touches 1 MiB blocks until stopped (the limit is 128 MiB).
 * Kattis has no memory-limit verdict and calls this a run-time error, so the package files it
 * under run_time_error/; ojd reports MLE, which `verdicts = "kattis"` counts as an RE. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    long long n;
    if (scanf("%lld", &n) != 1) return 1;
    for (;;) {
        volatile char *p = malloc(1 << 20);
        if (!p) return 3;
        for (int i = 0; i < 1 << 20; i += 4096) p[i] = 1;
    }
}
