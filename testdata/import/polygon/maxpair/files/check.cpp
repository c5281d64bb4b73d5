// Checker: the one number must equal the jury's (original fixture code).
#include "testlib.h"

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long jury = ans.readLong();
    long long got = ouf.readLong();
    if (!ouf.seekEof()) quitf(_pe, "extra output after the sum");
    if (got != jury) quitf(_wa, "expected %lld, found %lld", jury, got);
    quitf(_ok, "the sum is %lld", got);
}
