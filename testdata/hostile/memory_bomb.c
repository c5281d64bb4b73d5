/* Memory bomb: allocates and touches 1 MiB blocks until something stops it.
 * Verdict: MLE, decided from the cgroup's OOM event.
 * Harm it must not do: make the OOM killer pick anything but itself (the keeper, the judge), or
 * leave its memory or its OOM flag to the next run of the same sandbox. */
#include <stdlib.h>

int main(void) {
    for (;;) {
        volatile char *p = malloc(1 << 20);
        if (!p)
            return 3;
        for (int i = 0; i < 1 << 20; i += 4096)
            p[i] = 1;
    }
}
