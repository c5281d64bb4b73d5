#include <cstdio>

void output(const char* s) { std::printf("%s\n", s); }
