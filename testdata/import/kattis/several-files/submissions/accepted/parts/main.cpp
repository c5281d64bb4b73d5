#include <cstdio>
#include <vector>
#include "sum.h"

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 1;
    std::vector<long long> xs(n);
    for (auto &x : xs) scanf("%lld", &x);
    printf("%lld\n", sum(xs));
}
