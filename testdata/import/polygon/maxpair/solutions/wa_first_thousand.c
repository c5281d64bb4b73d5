#include <stdio.h>

/* Looks at the first 1000 values only: right for small inputs, wrong for large ones. */
int main(void) {
    int n;
    long long x, best = 0, second = 0;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n && i < 1000; i++) {
        if (scanf("%lld", &x) != 1) return 1;
        if (x > best) { second = best; best = x; }
        else if (x > second) second = x;
    }
    printf("%lld\n", best + second);
    return 0;
}
