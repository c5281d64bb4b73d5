/* Correct until it meets a negative value, then aborts (SIGABRT) on 03-edge. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int t, k;
    long long a;
    scanf("%d", &t);
    while (t--) {
        long long sum = 0;
        scanf("%d", &k);
        while (k--) {
            scanf("%lld", &a);
            if (a < 0) abort();
            sum += a;
        }
        printf("%lld\n", sum);
    }
    return 0;
}
