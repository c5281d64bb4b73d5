// The same main.cpp as accepted/parts, but the sum kept in an int: it overflows. Only this
// file differs, so a compile cache keyed by main.cpp alone would judge the accepted program.
#include "sum.h"

long long sum(const std::vector<long long> &xs) {
    int total = 0;
    for (long long x : xs) total += (int)x;
    return total;
}
