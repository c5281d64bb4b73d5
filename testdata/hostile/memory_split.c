/* A memory bomb split over four processes of 24 MiB each (the limit is 64 MiB): no single process
 * is over the limit, the run is. When the OOM killer takes one child the parent kills the others
 * and exits 0, as if nothing happened.
 * Verdict: MLE (from the OOM event: the main process exits 0 and no signal reaches it).
 * Harm it must not do: escape the limit by spreading memory over processes. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    pid_t kids[4];
    for (int i = 0; i < 4; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            size_t n = 24u << 20;
            volatile char *p = malloc(n);
            if (!p)
                _exit(3);
            for (size_t j = 0; j < n; j += 4096)
                p[j] = 1;
            for (;;) pause();
        }
    }
    /* Blocks until a child dies: only the OOM killer makes one die. */
    wait(NULL);
    for (int i = 0; i < 4; i++)
        if (kids[i] > 0)
            kill(kids[i], SIGKILL);
    while (wait(NULL) > 0) {
    }
    printf("survived\n");
    return 0;
}
