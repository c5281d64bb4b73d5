/* Wrong on the second pair only: the diff must point at line 2. */
#include <stdio.h>
int main(void) {
    int t, i;
    long long a, b;
    scanf("%d", &t);
    for (i = 0; i < t; i++) {
        scanf("%lld %lld", &a, &b);
        printf("%lld\n", i == 1 ? a + b + 1 : a + b);
    }
    return 0;
}
