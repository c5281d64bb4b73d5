// Multi-pass output validator (original, for the ojd test fixtures):
//   validator input answer feedback_dir < team_output
// Pass 1 (input "encode x"): the team prints y != x; x is kept in feedback_dir/state and the
// next pass's input "decode y" is written to feedback_dir/nextpass.in.
// Pass 2 (input "decode y"): the team must print x, read back from feedback_dir/state. A team
// that prints "again" asks for a third pass (a validator misuse the judge must catch).
#include <fstream>
#include <iostream>
#include <string>

static std::string dir;

static int reject(const std::string& why) {
    std::ofstream(dir + "judgemessage.txt") << why << "\n";
    return 43;
}

int main(int argc, char** argv) {
    if (argc < 4) return 1;
    dir = argv[3];
    if (!dir.empty() && dir.back() != '/') dir += '/';
    std::ifstream in(argv[1]);
    std::string mode;
    long long v;
    if (!(in >> mode >> v)) return 1;
    std::string word;
    if (!(std::cin >> word)) return reject("no output");
    if (mode == "encode") {
        long long y;
        try { y = std::stoll(word); } catch (...) { return reject("not an integer: " + word); }
        if (y < 0 || y >= 2147483648LL) return reject("y out of range");
        if (y == v) return reject("y equals x");
        std::ofstream(dir + "state") << v << "\n";
        std::ofstream(dir + "nextpass.in") << "decode " << y << "\n";
        return 42;
    }
    if (word == "again") {
        std::ofstream(dir + "nextpass.in") << "decode " << v << "\n";
        return 42;
    }
    long long x;
    std::ifstream state(dir + "state");
    if (!(state >> x)) return 1;  // no state from pass 1: the judge lost the feedback folder
    if (word != std::to_string(x)) return reject("expected " + std::to_string(x) + ", got " + word);
    return 42;
}
