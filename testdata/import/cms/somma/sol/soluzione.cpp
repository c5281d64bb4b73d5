// The reference: reads input.txt, writes output.txt, as CMS tasks do by default.
#include <cstdio>

int main() {
    std::FILE *in = std::fopen("input.txt", "r");
    std::FILE *out = std::fopen("output.txt", "w");
    long long a, b;
    if (std::fscanf(in, "%lld %lld", &a, &b) != 2) return 1;
    std::fprintf(out, "%lld\n", a + b);
    return 0;
}
