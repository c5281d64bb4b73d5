/* Correct but burns 400 ms of CPU time on every test: accepted under a 1 s limit, a TLE once the
 * limit is tightened (the tests tighten it to 250 ms). clock() counts CPU time, so the burn does
 * not depend on the machine's load. */
#include <stdio.h>
#include <time.h>

int main(void) {
    volatile unsigned long spin = 0;
    while (clock() < CLOCKS_PER_SEC * 2 / 5) spin++;
    int t, k;
    long long a;
    scanf("%d", &t);
    while (t--) {
        long long sum = 0;
        scanf("%d", &k);
        while (k--) {
            scanf("%lld", &a);
            sum += a;
        }
        printf("%lld\n", sum);
    }
    return 0;
}
