// Twice the best side: an outcome of exactly 2 everywhere, within the sample's threshold and the
// 30-point subtask's (2, inclusive), not the 70-point subtask's.
#include <cstdio>

int main() {
    long long n;
    if (scanf("%lld", &n) != 1) return 1;
    long long k = 1;
    while (k * k < n) k++;
    printf("%lld\n", 2 * k);
}
