#include <stdio.h>
#include <string.h>

/* Never flushes: its guess waits in the buffer while it waits for the answer (wall time). */
int main(void) {
    int lo = 1, hi = 1000;
    char reply[16];
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        printf("%d\n", mid);
        if (scanf("%15s", reply) != 1 || !strcmp(reply, "correct")) return 0;
        if (!strcmp(reply, "higher")) lo = mid + 1; else hi = mid - 1;
    }
    return 0;
}
