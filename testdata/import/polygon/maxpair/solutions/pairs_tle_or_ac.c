#include <stdio.h>

/* Tries every pair: quadratic. Right wherever it finishes: accepted on the small tests, too
 * slow on the large ones (tagged time-limit-exceeded-or-accepted). */
static long long a[100000];

int main(void) {
    int n;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) scanf("%lld", &a[i]);
    long long best = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (a[i] + a[j] > best) best = a[i] + a[j];
    printf("%lld\n", best);
    return 0;
}
