/* ptrace of the parent (the sandbox's init, and through it the judge's view of the run).
 * Verdict: RE, "forbidden system call ptrace" (seccomp kills the process at the call), at once.
 * Harm it must not do: hang the run, or stop or inspect its parent. If the call returns, the
 * program prints the error and exits 0, which the test treats as a failure. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

int main(void) {
    long r = ptrace(PTRACE_ATTACH, getppid(), 0, 0);
    printf("ptrace returned %ld: %s\n", r, strerror(errno));
    return 0;
}
