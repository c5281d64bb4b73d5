#include "sum.h"

long long sum(const std::vector<long long> &xs) {
    long long total = 0;
    for (long long x : xs) total += x;
    return total;
}
