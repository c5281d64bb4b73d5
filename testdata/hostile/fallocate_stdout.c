/* Reserves disk blocks behind stdout and stderr without growing them: fallocate with
 * FALLOC_FL_KEEP_SIZE leaves st_size at 0, so a limit that counts sizes sees nothing while the
 * host's disk fills. Then solves A+B.
 * Harm it must not do: make the host allocate more than the output limit allows (the judge's
 * stdout/stderr files must stay small on disk), whatever the verdict. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    long long len = 64LL << 20;
    for (int fd = 1; fd <= 2; fd++) {
        int r = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, len);
        fprintf(stderr, "fallocate %d: %s\n", fd, r == 0 ? "ok" : strerror(errno));
    }
    long long t, a, b;
    if (scanf("%lld", &t) != 1)
        return 1;
    while (t-- > 0 && scanf("%lld %lld", &a, &b) == 2)
        printf("%lld\n", a + b);
    return 0;
}
