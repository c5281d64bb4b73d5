#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* Assumes both legs are positive and aborts otherwise. */
int main(void) {
    double a, b;
    if (scanf("%lf %lf", &a, &b) != 2) return 1;
    if (a == 0 || b == 0) abort();
    printf("%.9f\n", sqrt(a * a + b * b));
    return 0;
}
