/* Checks the constraints of statement.md; exits 1 with a reason on the first violation. */
#include <stdio.h>

int main(void) {
    int t, k, line;
    long long a;
    char extra;
    if (scanf("%d", &t) != 1 || t < 1 || t > 100) { puts("T must be in [1, 100]"); return 1; }
    for (line = 1; line <= t; line++) {
        if (scanf("%d", &k) != 1 || k < 0 || k > 100) { printf("line %d: k must be in [0, 100]\n", line); return 1; }
        while (k--) {
            if (scanf("%lld", &a) != 1 || a < -1000000000LL || a > 1000000000LL) {
                printf("line %d: values must be integers with |a| <= 10^9\n", line);
                return 1;
            }
        }
    }
    if (scanf(" %c", &extra) == 1) { puts("extra data after the last line"); return 1; }
    return 0;
}
