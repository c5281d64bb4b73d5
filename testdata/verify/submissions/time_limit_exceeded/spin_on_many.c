/* Correct on short inputs, loops forever once T exceeds 4 (02-medium). */
#include <stdio.h>

int main(void) {
    int t, k;
    long long a;
    scanf("%d", &t);
    if (t > 4) {
        volatile unsigned long spin = 0;
        for (;;) spin++;
    }
    while (t--) {
        long long sum = 0;
        scanf("%d", &k);
        while (k--) {
            scanf("%lld", &a);
            sum += a;
        }
        printf("%lld\n", sum);
    }
    return 0;
}
