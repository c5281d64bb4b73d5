#include <stdio.h>
#include <stdlib.h>

/* Makes one guess, then crashes before reading the answer. */
int main(void) {
    printf("500\n");
    fflush(stdout);
    abort();
}
