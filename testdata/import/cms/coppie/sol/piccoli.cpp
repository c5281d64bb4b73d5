// Right for small sums only: prints 0 for a sum of 1000 or more.
#include <cstdio>

int main() {
    int t;
    if (scanf("%d", &t) != 1) return 1;
    while (t--) {
        long long x, y;
        scanf("%lld %lld", &x, &y);
        printf("%lld\n", x + y < 1000 ? x + y : 0);
    }
}
