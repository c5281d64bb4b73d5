/* Fork bomb.
 * Verdict: TLE or RE (a verdict, never a judge error).
 * Harm it must not do: hold more processes at once than the run's process limit (it prints how
 * many children it got before fork failed; the test checks that count against the limit), slow
 * the host down, or leave a single process alive after the run. */
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

int main(void) {
    int got = 0, failed = 0;
    while (failed < 1000) {
        pid_t p = fork();
        if (p == 0)
            for (;;) pause();
        if (p > 0)
            got++;
        else
            failed++;
    }
    printf("forked %d\n", got);
    fflush(stdout);
    for (;;) fork();
}
