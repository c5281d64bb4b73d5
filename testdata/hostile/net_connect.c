/* Network connect: argv[1] is the port of a TCP listener on the host's 127.0.0.1, argv[2] the
 * name of a listener in the host's abstract AF_UNIX namespace (both opened by the test).
 * First the Unix socket (seccomp allows AF_UNIX, so only the empty network namespace stands in
 * the way: it prints "unix: <errno>"), then TCP (seccomp fails AF_INET sockets with EACCES, so
 * it prints "tcp: <errno>"). Verdict: AC (exit 0).
 * Harm it must not do: reach either host listener. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3)
        return 2;
    int u = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un ua = {.sun_family = AF_UNIX};
    size_t len = strlen(argv[2]);
    if (len > sizeof ua.sun_path - 1)
        return 2;
    memcpy(ua.sun_path + 1, argv[2], len); /* sun_path[0] = 0: abstract */
    int r = connect(u, (struct sockaddr *)&ua, offsetof(struct sockaddr_un, sun_path) + 1 + len);
    printf("unix: %s\n", r == 0 ? "connected" : strerror(errno));
    fflush(stdout);

    int t = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in ta = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1]))};
    ta.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    r = connect(t, (struct sockaddr *)&ta, sizeof ta);
    printf("tcp: %s\n", r == 0 ? "connected" : strerror(errno));
    if (r == 0)
        write(t, "hello from the sandbox\n", 23);
    return 0;
}
