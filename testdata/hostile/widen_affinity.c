/* Widens its CPU mask to every CPU (sched_setaffinity), then says how many CPUs it may run
 * on: a keeper pinned by a cpuset cgroup keeps it on its one CPU whatever it asks. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>

int main(void) {
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int i = 0; i < CPU_SETSIZE; i++) CPU_SET(i, &all);
    int r = sched_setaffinity(0, sizeof all, &all);
    cpu_set_t now;
    CPU_ZERO(&now);
    if (sched_getaffinity(0, sizeof now, &now) != 0) {
        printf("getaffinity failed\n");
        return 1;
    }
    printf("set=%d cpus=%d\n", r, CPU_COUNT(&now));
    return 0;
}
