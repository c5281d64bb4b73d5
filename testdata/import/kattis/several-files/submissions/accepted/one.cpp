// One file: the reference (a submission of several files cannot be one).
#include <cstdio>

int main() {
    int n;
    long long x, total = 0;
    if (scanf("%d", &n) != 1) return 1;
    while (n-- > 0 && scanf("%lld", &x) == 1) total += x;
    printf("%lld\n", total);
}
