/* A tiny reading helper for the validator (original, for the ojd test fixtures). */
#include <stdio.h>
#include <stdlib.h>

static void reject(const char *why) {
    fprintf(stderr, "%s\n", why);
    exit(43);
}

static long long read_int(long long lo, long long hi, char after) {
    long long x;
    int c;
    if (scanf("%lld", &x) != 1) reject("expected an integer");
    if (x < lo || x > hi) reject("integer out of range");
    c = getchar();
    if (c != after) reject("unexpected separator");
    return x;
}
