/* Pass 1 is right; pass 2 prints what it was given instead of decoding it. */
#include <stdio.h>
int main(void) {
    char mode[16];
    long long v;
    if (scanf("%15s %lld", mode, &v) != 2) return 1;
    printf("%lld\n", mode[0] == 'e' ? v + 1 : v);
    return 0;
}
