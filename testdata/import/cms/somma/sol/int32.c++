// Wrong on sums beyond 32 bits: the small subtask only (40 points).
#include <cstdio>

int main() {
    std::FILE *in = std::fopen("input.txt", "r");
    std::FILE *out = std::fopen("output.txt", "w");
    int a, b;
    if (std::fscanf(in, "%d %d", &a, &b) != 2) return 1;
    std::fprintf(out, "%d\n", a + b);
    return 0;
}
