// The task's checker (CMS): correttore input answer output. The input is n, the output a side k
// with k * k >= n; prints k over the smallest such side (the answer), or 0 for an invalid output.
#include <cstdio>

int main(int argc, char **argv) {
    if (argc < 4) return 1;
    FILE *in = fopen(argv[1], "r"), *ans = fopen(argv[2], "r"), *out = fopen(argv[3], "r");
    if (!in || !ans || !out) return 1;
    long long n, best, k;
    if (fscanf(in, "%lld", &n) != 1 || fscanf(ans, "%lld", &best) != 1 || best <= 0) return 1;
    if (fscanf(out, "%lld", &k) != 1 || k <= 0 || k > 3000000000LL || k * k < n) {
        printf("0\n");
        fprintf(stderr, "translate:wrong\n");
        return 0;
    }
    printf("%.6f\n", (double)k / best);
    if (k == best) fprintf(stderr, "translate:success\n");
    else fprintf(stderr, "side %lld, the best is %lld\n", k, best);
    return 0;
}
