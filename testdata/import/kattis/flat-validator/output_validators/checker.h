// Feedback helper of checker.cpp (original, for the ojd test fixtures): a header, not a program.
#include <cstdio>
#include <cstdlib>
#include <string>

static std::string feedback_dir;

[[noreturn]] static void wrong(const std::string& why) {
    std::string path = feedback_dir + "/judgemessage.txt";
    if (FILE* f = std::fopen(path.c_str(), "a")) {
        std::fprintf(f, "%s\n", why.c_str());
        std::fclose(f);
    }
    std::exit(43);
}
