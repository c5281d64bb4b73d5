#include <stdio.h>

/* Walks up from 0 in tiny steps until the square passes a^2+b^2: far too slow for big legs. */
int main(void) {
    double a, b, c = 0;
    if (scanf("%lf %lf", &a, &b) != 2) return 1;
    while (c * c < a * a + b * b) c += 1e-7;
    printf("%.9f\n", c);
    return 0;
}
