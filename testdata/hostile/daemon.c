/* Daemonized child: double fork and setsid, so the grandchild belongs to no session or process
 * group of the program, then the program solves A+B and exits. The grandchild waits until the
 * program has exited (its pipe closes), then spins and keeps rewriting /box/heartbeat forever.
 * Verdict: AC on aplusb.
 * Harm it must not do: outlive its run (every process of the run's uid must be gone when the
 * judge returns), or keep the run from ending when the program exits. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    int p[2];
    if (pipe(p) != 0)
        return 3;
    if (fork() == 0) {
        setsid();
        if (fork() != 0)
            _exit(0);
        close(p[1]);
        char c;
        while (read(p[0], &c, 1) > 0) {
        }
        for (unsigned long i = 0;; i++) {
            int fd = open("/box/heartbeat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0) {
                dprintf(fd, "%lu\n", i);
                close(fd);
            }
        }
    }
    close(p[0]);
    long long t, a, b;
    if (scanf("%lld", &t) != 1)
        return 1;
    while (t-- > 0 && scanf("%lld %lld", &a, &b) == 2)
        printf("%lld\n", a + b);
    return 0;
}
