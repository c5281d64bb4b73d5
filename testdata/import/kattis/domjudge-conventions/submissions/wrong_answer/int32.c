/* @EXPECTED_RESULTS@: WRONG-ANSWER */
#include <stdio.h>
int main(void) {
    int n;
    if (scanf("%d", &n) != 1) return 1;
    /* 2n in 32 bits: wraps for n = 1.5 * 10^9. */
    printf("%d\n", (int)(2u * (unsigned)n));
    return 0;
}
