#include "validator.h"

/* N (1..200000), then N integers from 1 to 10^12 on one line; exit 42 when valid. */
int main(void) {
    long long n = read_int(1, 200000, '\n');
    for (long long i = 0; i < n; i++) read_int(1, 1000000000000LL, i + 1 == n ? '\n' : ' ');
    if (getchar() != EOF) reject("trailing data");
    return 42;
}
