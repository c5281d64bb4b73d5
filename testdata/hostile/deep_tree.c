/* Builds a 4090-deep chain of folders in /tmp (one inode each, within the tmpfs's inode cap),
 * then solves A+B. Emptying such a tree file by file holds one descriptor per level, past the
 * common `ulimit -n 1024`.
 * Harm it must not do: make the next run (the next test, the next submission) fail: every test
 * must be AC and the keeper must keep judging. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
    if (chdir("/tmp") != 0)
        return 2;
    int depth = 0;
    while (depth < 4090 && mkdir("d", 0755) == 0 && chdir("d") == 0)
        depth++;
    fprintf(stderr, "depth %d\n", depth);
    long long t, a, b;
    if (scanf("%lld", &t) != 1)
        return 1;
    while (t-- > 0 && scanf("%lld %lld", &a, &b) == 2)
        printf("%lld\n", a + b);
    return 0;
}
