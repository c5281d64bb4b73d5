#include <stdio.h>

/* Guesses 0 (the interactor rejects it and exits first), then spins. */
int main(void) {
    printf("0\n");
    fflush(stdout);
    volatile unsigned long x = 0;
    for (;;) x++;
}
