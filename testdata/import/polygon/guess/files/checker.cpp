// testlib checker of an interactive problem (Polygon's rule): it reads what the interactor wrote
// to tout, the number of guesses, and accepts at most 10 (the interactor itself allows 12).
#include "testlib.h"

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int g = ouf.readInt(1, 12, "guesses");
    if (g > 10) quitf(_wa, "%d guesses, at most 10 allowed", g);
    quitf(_ok, "%d guesses", g);
}
