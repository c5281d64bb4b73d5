/* @EXPECTED_RESULTS@: CORRECT, TIMELIMIT
 * (DOMjudge allows either; ojd promises one verdict per submission, so it is skipped.) */
#include <stdio.h>
int main(void) {
    long long n;
    if (scanf("%lld", &n) != 1) return 1;
    printf("%lld\n", n + n);
    return 0;
}
