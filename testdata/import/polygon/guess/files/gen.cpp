// Generator: a random secret from 1 to 1000, seeded by the arguments (original fixture code).
#include "testlib.h"
#include <cstdio>

int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    std::printf("%d\n", rnd.next(1, 1000));
}
