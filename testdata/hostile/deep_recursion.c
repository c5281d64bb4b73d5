/* Deep recursion that fits in memory: a million frames of about 100 bytes each, some 100 MiB of
 * stack, under a 256 MiB memory limit.
 * Verdict: AC (the stack limit is the memory limit, as at NOIP and in Lemon).
 * Harm it must not do: none; the danger is the judge's, a default 8 MiB stack would crash it. */
#include <stdio.h>

__attribute__((noinline)) static long depth(long n) {
    volatile char pad[80];
    pad[0] = (char)n;
    if (n == 0)
        return 0;
    return depth(n - 1) + (pad[0] & 1);
}

int main(void) {
    printf("%ld\n", depth(1000000));
    return 0;
}
