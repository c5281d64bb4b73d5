/* Not an attack: a correct A+B whose executable holds a 9 MiB initialised table (a precomputed
 * answer table, as contestants do). Its executable is larger than the 8 MiB output limit of a
 * compilation, and must still be stored whole.
 * Verdict: AC on aplusb (a truncated executable would crash with SIGSEGV on every test). */
#include <stdio.h>

#define SIZE (9 << 20)
static const unsigned char table[SIZE] = {1, 2, 3};

int main(void) {
    volatile const unsigned char *t = table;
    long long one = t[0] + t[SIZE - 1]; /* 1 + 0: touches both ends of the table */
    long long n, a, b;
    if (scanf("%lld", &n) != 1)
        return 1;
    while (n-- > 0 && scanf("%lld %lld", &a, &b) == 2)
        printf("%lld\n", (a + b) * one);
    return 0;
}
