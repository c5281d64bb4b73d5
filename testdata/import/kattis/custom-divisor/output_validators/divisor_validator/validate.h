// Feedback helpers for a Kattis output validator (original, for the ojd test fixtures).
#include <cstdio>
#include <cstdlib>
#include <string>

static std::string feedback_dir;

static void message(const char* file, const std::string& text) {
    std::string path = feedback_dir + "/" + file;
    if (FILE* f = std::fopen(path.c_str(), "a")) {
        std::fprintf(f, "%s\n", text.c_str());
        std::fclose(f);
    }
}

[[noreturn]] static void accept() { std::exit(42); }

[[noreturn]] static void reject(const std::string& team, const std::string& judge) {
    message("teammessage.txt", team);
    message("judgemessage.txt", judge);
    std::exit(43);
}
