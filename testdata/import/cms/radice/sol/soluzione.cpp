// The smallest side: the ceiling of the square root of n.
#include <cstdio>

int main() {
    long long n;
    if (scanf("%lld", &n) != 1) return 1;
    long long k = 1;
    while (k * k < n) k++;
    printf("%lld\n", k);
}
