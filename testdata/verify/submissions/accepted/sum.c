/* Correct, written differently from the reference: reads every value as a long. */
#include <stdio.h>

int main(void) {
    long t, k, a;
    scanf("%ld", &t);
    for (long i = 0; i < t; i++) {
        long sum = 0;
        scanf("%ld", &k);
        for (long j = 0; j < k; j++) {
            scanf("%ld", &a);
            sum += a;
        }
        printf("%ld\n", sum);
    }
    return 0;
}
