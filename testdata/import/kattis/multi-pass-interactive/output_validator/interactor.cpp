// Interactive multi-pass interactor (original, for the ojd test fixtures):
//   interactor input answer feedback_dir < program_output > program_input
// It tells the program its pass's input line ("encode x" or "decode y") and reads one reply.
// Pass 1: the reply y must differ from x; x is kept in feedback_dir/state, and "decode y" is
// the next pass's input. Pass 2: the reply must be x, read back from feedback_dir/state.
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
    std::cout << mode << " " << v << std::endl;
    std::string word;
    if (!(std::cin >> word)) return reject("no reply");
    if (mode == "encode") {
        long long y;
        try { y = std::stoll(word); } catch (...) { return reject("not an integer: " + word); }
        if (y < 0 || y >= 2147483648LL) return reject("y out of range");
        if (y == v) return reject("y equals x");
        std::ofstream(dir + "state") << v << "\n";
        std::ofstream(dir + "nextpass.in") << "decode " << y << "\n";
        return 42;
    }
    long long x;
    std::ifstream state(dir + "state");
    if (!(state >> x)) return 1;  // no state from pass 1: the judge lost the feedback folder
    if (word != std::to_string(x)) return reject("expected " + std::to_string(x) + ", got " + word);
    return 42;
}
