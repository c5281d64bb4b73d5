/* Reference: each line's sum in 64 bits. */
#include <stdio.h>

int main(void) {
    int t, k;
    long long a;
    if (scanf("%d", &t) != 1) return 1;
    while (t--) {
        long long sum = 0;
        if (scanf("%d", &k) != 1) return 1;
        while (k--) {
            if (scanf("%lld", &a) != 1) return 1;
            sum += a;
        }
        printf("%lld\n", sum);
    }
    return 0;
}
