#include <stdio.h>

/* Adds each number one unit at a time (volatile, so the compiler cannot fold the loop). */
int main(void) {
    int n;
    long long x;
    volatile long long s = 0;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) {
        if (scanf("%lld", &x) != 1) return 1;
        for (long long k = 0; k < x; k++) s = s + 1;
    }
    printf("%lld\n", (long long)s);
    return 0;
}
