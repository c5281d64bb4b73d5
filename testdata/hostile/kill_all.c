/* kill(-1, SIGKILL): signals every process it may signal, after forking three children that wait
 * for it; then it solves A+B as if nothing happened (the call never kills the caller itself).
 * Verdict: AC on aplusb (a verdict in any case, never a judge error).
 * Harm it must not do: kill anything outside its own run: the judge, the keeper, the test's own
 * child processes, or programs running in other sandboxes at the same time. */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    for (int i = 0; i < 3; i++)
        if (fork() == 0)
            for (;;) pause();
    kill(-1, SIGKILL);
    while (wait(NULL) > 0) {
    }
    long long t, a, b;
    if (scanf("%lld", &t) != 1)
        return 1;
    while (t-- > 0 && scanf("%lld %lld", &a, &b) == 2)
        printf("%lld\n", a + b);
    return 0;
}
