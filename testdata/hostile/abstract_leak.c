/* `plant NAME`: binds an abstract Unix socket NAME and keeps it alive after the process dies by
 * putting it, and the socket pair that carries it, in flight in an SCM_RIGHTS cycle.
 * `probe NAME`: connects to NAME and says whether it got through.
 * Harm it must not do: a later run (the next test, another submission, a checker) must never
 * reach what an earlier run left: the probe must not connect. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static socklen_t address(struct sockaddr_un *a, const char *name) {
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    size_t n = strlen(name);
    memcpy(a->sun_path + 1, name, n);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int send_fds(int via, int *fds, int n) {
    char buf[CMSG_SPACE(sizeof(int) * 4)];
    memset(buf, 0, sizeof buf);
    char byte = 'x';
    struct iovec iov = {&byte, 1};
    struct msghdr m = {0};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = buf;
    m.msg_controllen = CMSG_SPACE(sizeof(int) * n);
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * n);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
    return sendmsg(via, &m, 0) == 1 ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc < 3)
        return 2;
    struct sockaddr_un a;
    socklen_t len = address(&a, argv[2]);
    if (strcmp(argv[1], "plant") == 0) {
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        if (s < 0 || bind(s, (struct sockaddr *)&a, len) != 0 || listen(s, 8) != 0) {
            printf("plant failed: %s\n", strerror(errno));
            return 0;
        }
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
            return 3;
        /* Both the listener and the receiving end sit in the receiving end's own queue. */
        int fds[3] = {s, pair[0], pair[1]};
        int r1 = send_fds(pair[0], fds, 3);
        int r2 = send_fds(pair[1], fds, 3);
        printf("planted %d %d\n", r1, r2);
        return 0;
    }
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    if (c < 0)
        return 3;
    if (connect(c, (struct sockaddr *)&a, len) == 0)
        printf("connected\n");
    else
        printf("refused: %s\n", strerror(errno));
    return 0;
}
