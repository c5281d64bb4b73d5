#include <stdio.h>
int main(void) {
    int t;
    long long a, b;
    if (scanf("%d", &t) != 1) return 1;
    while (t--) {
        scanf("%lld %lld", &a, &b);
        printf("%lld\n", a + b);
    }
    return 0;
}
