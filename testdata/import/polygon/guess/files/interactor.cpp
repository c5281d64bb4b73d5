// testlib interactor: the number game, at most 12 guesses (the checker then allows 10).
#include "testlib.h"
#include <iostream>

int main(int argc, char* argv[]) {
    registerInteraction(argc, argv);
    int secret = inf.readInt(1, 1000, "secret");
    for (int g = 1; g <= 12; g++) {
        int x = ouf.readInt(1, 1000, "guess");
        if (x == secret) {
            std::cout << "correct" << std::endl;
            tout << g << std::endl;
            quitf(_ok, "guessed in %d", g);
        }
        std::cout << (x < secret ? "higher" : "lower") << std::endl;
    }
    quitf(_wa, "no correct guess in 12");
}
