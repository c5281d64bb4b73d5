#include <stdio.h>

/* n divides n, but it is not a proper divisor. */
int main(void) {
    long long n;
    if (scanf("%lld", &n) != 1) return 1;
    printf("%lld\n", n);
    return 0;
}
