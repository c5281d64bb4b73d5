/* Drops the sign of negative values: wrong only on tests with negative numbers (03-edge). */
#include <stdio.h>

int main(void) {
    int t, k;
    long long a;
    scanf("%d", &t);
    while (t--) {
        long long sum = 0;
        scanf("%d", &k);
        while (k--) {
            scanf("%lld", &a);
            sum += a < 0 ? -a : a;
        }
        printf("%lld\n", sum);
    }
    return 0;
}
