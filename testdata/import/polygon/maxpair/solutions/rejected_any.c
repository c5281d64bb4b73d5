#include <stdio.h>

/* Tagged "rejected": fails somehow, no single verdict promised. */
int main(void) {
    printf("0\n");
    return 0;
}
