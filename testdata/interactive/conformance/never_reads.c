#include <stdio.h>

/* Writes guesses and never reads an answer. */
int main(void) {
    for (int g = 1;; g = g % 1000 + 1) {
        printf("%d\n", g);
        fflush(stdout);
    }
}
