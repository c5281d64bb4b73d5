#include <stdio.h>
int main(void) {
    char mode[16];
    long long v;
    if (scanf("%15s %lld", mode, &v) != 2) return 1;
    printf("%lld\n", v ^ 1);
    return 0;
}
