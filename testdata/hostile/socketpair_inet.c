/* Asks for a socket pair of a network family. `socket` is allowed for AF_UNIX only; socketpair
 * must be held to the same rule (named as a forbidden call), not left to the kernel.
 * Verdict: RE, "forbidden system call socketpair". */
#include <stdio.h>
#include <sys/socket.h>

int main(void) {
    int sv[2];
    int r = socketpair(AF_INET, SOCK_STREAM, 0, sv);
    printf("socketpair returned %d\n", r);
    return 0;
}
