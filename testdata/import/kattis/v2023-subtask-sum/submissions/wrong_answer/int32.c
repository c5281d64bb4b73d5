#include <stdio.h>

/* Sums in 32 bits: right for the small group only (40 points). */
int main(void) {
    int n, s = 0;
    long long x;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) {
        if (scanf("%lld", &x) != 1) return 1;
        s += (int)x;
    }
    printf("%d\n", s);
    return 0;
}
