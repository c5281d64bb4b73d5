#include <stdio.h>

/* Forgets that 2 is a divisor: calls even numbers with no odd divisor prime. */
int main(void) {
    long long n;
    if (scanf("%lld", &n) != 1) return 1;
    for (long long d = 3; d * d <= n; d += 2)
        if (n % d == 0) {
            printf("%lld\n", d);
            return 0;
        }
    printf("-1\n");
    return 0;
}
