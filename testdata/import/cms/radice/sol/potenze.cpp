// A power of two big enough: less than twice the best side (the 30-point subtask only).
#include <cstdio>

int main() {
    long long n;
    if (scanf("%lld", &n) != 1) return 1;
    long long k = 1;
    while (k * k < n) k *= 2;
    printf("%lld\n", k);
}
