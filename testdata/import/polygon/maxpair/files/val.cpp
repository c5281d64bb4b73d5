// Validator: N (2..100000), then N integers from 1 to 10^9 (original fixture code).
#include "testlib.h"

int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    int n = inf.readInt(2, 100000, "n");
    inf.readEoln();
    for (int i = 0; i < n; i++) {
        inf.readLong(1LL, 1000000000LL, "a_i");
        if (i + 1 < n) inf.readSpace();
    }
    inf.readEoln();
    inf.readEof();
}
