/* Thread spinners: the main thread and three more spin on the CPU, so CPU time grows up to four
 * times faster than the wall clock (on as many cores).
 * Verdict: TLE on CPU time, with CPU time at least the limit and decided promptly: the wall time
 * must stay well below limit x threads.
 * Harm it must not do: use more CPU than the limit (by having its CPU time measured per thread
 * or late), or hold the judge for the wall-time limit. */
#include <pthread.h>

static void *spin(void *arg) {
    volatile unsigned long x = 0;
    for (;;)
        x++;
    return arg;
}

int main(void) {
    pthread_t t;
    for (int i = 0; i < 3; i++)
        pthread_create(&t, 0, spin, 0);
    spin(0);
    return 0;
}
