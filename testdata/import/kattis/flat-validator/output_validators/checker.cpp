// Output validator (original, for the ojd test fixtures), written as SWERC-style packages
// write theirs: one flat output_validators/ folder holding the program and its header.
//   checker input answer feedback_dir < team_output
#include <fstream>
#include <iostream>
#include "checker.h"

int main(int argc, char** argv) {
    if (argc < 4) return 1;
    feedback_dir = argv[3];
    std::ifstream in(argv[1]);
    long long n;
    if (!(in >> n)) return 1;
    long long a, b;
    if (!(std::cin >> a >> b)) wrong("expected two integers");
    std::string extra;
    if (std::cin >> extra) wrong("extra output: " + extra);
    if (a < 1 || b < 1) wrong("not positive");
    if (a + b != n) wrong(std::to_string(a) + " + " + std::to_string(b) + " is not " + std::to_string(n));
    std::exit(42);
}
