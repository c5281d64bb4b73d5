// The task's checker (CMS): correttore input answer output. Prints the share of the pairs
// answered right, from 0 to 1, on standard output and a message on standard error.
#include <cstdio>

int main(int argc, char **argv) {
    if (argc < 4) return 1;
    FILE *in = fopen(argv[1], "r"), *ans = fopen(argv[2], "r"), *out = fopen(argv[3], "r");
    if (!in || !ans || !out) return 1;
    int t;
    if (fscanf(in, "%d", &t) != 1 || t <= 0) return 1;
    int right = 0;
    for (int i = 0; i < t; i++) {
        long long want, got;
        if (fscanf(ans, "%lld", &want) != 1) return 1;
        if (fscanf(out, "%lld", &got) == 1 && got == want) right++;
    }
    printf("%f\n", (double)right / t);
    if (right == t) fprintf(stderr, "translate:success\n");
    else if (right == 0) fprintf(stderr, "translate:wrong\n");
    else fprintf(stderr, "%d of %d pairs right\n", right, t);
    return 0;
}
