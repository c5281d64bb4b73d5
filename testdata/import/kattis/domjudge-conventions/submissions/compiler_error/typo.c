#include <stdio.h>
int main(void) {
    long long n
    scanf("%lld", &n);
    printf("%lld\n", 2 * n);
}
