// Generator: gen N MAXV SEED prints N random values from 1 to MAXV (original fixture code).
#include "testlib.h"
#include <cstdio>

int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>(1);
    long long maxv = opt<long long>(2);
    std::printf("%d\n", n);
    for (int i = 0; i < n; i++) std::printf("%lld%c", rnd.next(1LL, maxv), i + 1 == n ? '\n' : ' ');
}
