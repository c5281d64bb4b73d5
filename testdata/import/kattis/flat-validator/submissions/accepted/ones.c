#include <stdio.h>
int main(void) {
    long long n;
    if (scanf("%lld", &n) != 1) return 1;
    printf("1 %lld\n", n - 1);
    return 0;
}
