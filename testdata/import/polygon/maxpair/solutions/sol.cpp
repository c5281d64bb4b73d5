#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    long long best = 0, second = 0, x;
    for (int i = 0; i < n; i++) {
        std::scanf("%lld", &x);
        if (x > best) {
            second = best;
            best = x;
        } else if (x > second) {
            second = x;
        }
    }
    std::printf("%lld\n", best + second);
}
