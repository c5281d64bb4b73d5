// The reference: counts the even numbers, read as 64-bit integers.
#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    int even = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        if (std::scanf("%lld", &x) != 1) return 1;
        if (x % 2 == 0) even++;
    }
    std::printf("%d\n", even);
    return 0;
}
