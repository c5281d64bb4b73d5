/* Wastes two guesses (1, then 2) before a binary search over 3..1000: the interactor, which
   allows 12 guesses, accepts; the checker, which allows 10, says wrong answer on 500 and 1000. */
#include <stdio.h>
#include <string.h>

static int ask(int x) {
    char reply[16];
    printf("%d\n", x);
    fflush(stdout);
    if (scanf("%15s", reply) != 1 || strcmp(reply, "correct") == 0) return 0;
    return strcmp(reply, "higher") == 0 ? 1 : -1;
}

int main(void) {
    int lo = 3, hi = 1000, r;
    if ((r = ask(1)) == 0 || (r = ask(2)) == 0) return 0;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        r = ask(mid);
        if (r == 0) return 0;
        if (r > 0) lo = mid + 1; else hi = mid - 1;
    }
    return 0;
}
