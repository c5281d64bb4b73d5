/* Hides CPU time in a child that is never waited for: with SIGCHLD ignored the kernel reaps
 * the child itself (its time is added to no parent), the child burns 0.8 s of CPU and prints the
 * answers, the parent waits for the child's pipe to close (no CPU) and exits. No wait4 in the
 * judge ever counts the child.
 * Harm it must not do: be reported with the parent's CPU time only (1-2 ms): the run's CPU time
 * must include the child's 0.8 s. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void) {
    signal(SIGCHLD, SIG_IGN);
    int p[2];
    if (pipe(p) != 0)
        return 3;
    if (fork() == 0) {
        close(p[0]);
        volatile unsigned long x = 0;
        while (cpu() < 0.8)
            for (int i = 0; i < 100000; i++)
                x += i;
        long long t, a, b;
        if (scanf("%lld", &t) != 1)
            return 1;
        while (t-- > 0 && scanf("%lld %lld", &a, &b) == 2)
            printf("%lld\n", a + b);
        fflush(stdout);
        _exit(0);
    }
    close(p[1]);
    char c;
    while (read(p[0], &c, 1) > 0) {
    }
    return 0;
}
