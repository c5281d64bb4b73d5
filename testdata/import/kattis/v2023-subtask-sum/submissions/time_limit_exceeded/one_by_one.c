#include <stdio.h>

/* Adds each number one unit at a time. */
int main(void) {
    int n;
    long long x, s = 0;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) {
        if (scanf("%lld", &x) != 1) return 1;
        for (long long k = 0; k < x; k++) s++;
    }
    printf("%lld\n", s);
    return 0;
}
