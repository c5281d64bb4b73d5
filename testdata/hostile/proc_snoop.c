/* Snoops on other processes through /proc. It lists every process /proc shows ("PID <pid>
 * <cmdline>") and its environment ("ENVIRON <pid> <bytes>"), then tries the host pids given as
 * arguments (the test passes pids of its own processes, which carry a marker on their command
 * line): "TRY <pid> cmdline: <text or error>", the same for environ, status and the cwd link.
 * For every process it sees but itself, it also looks into that process's sandbox through
 * /proc/<pid>/root: "BOX <pid> <file>: <first bytes>" for each file in its /box. It starts with
 * "UID <uid>", the uid it runs as.
 * Verdict: AC of its own (exit 0); the test judges it by what it printed.
 * Harm it must not do: see any process but its own; read anything of the host's processes. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Reads a /proc file into buf with NULs turned into spaces; returns the length or -errno. */
static long slurp(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, cap - 1);
    int e = errno;
    close(fd);
    if (n < 0)
        return -e;
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == 0 || buf[i] == '\n')
            buf[i] = ' ';
    buf[n] = 0;
    return n;
}

static void show(const char *pid, const char *what) {
    char path[256], buf[8192];
    snprintf(path, sizeof path, "/proc/%s/%s", pid, what);
    long n = slurp(path, buf, sizeof buf);
    printf("TRY %s %s: %s\n", pid, what, n < 0 ? strerror(-n) : buf);
}

/* Prints the files of another process's box, seen through its /proc root link. */
static void peek_box(const char *pid) {
    char path[256];
    snprintf(path, sizeof path, "/proc/%s/root/box", pid);
    DIR *d = opendir(path);
    if (!d) {
        printf("BOX %s: %s\n", pid, strerror(errno));
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char file[512], buf[256];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        long n = slurp(file, buf, sizeof buf);
        printf("BOX %s %s: %s\n", pid, e->d_name, n < 0 ? strerror(-n) : buf);
    }
    closedir(d);
}

int main(int argc, char **argv) {
    printf("UID %d\n", (int)getuid());
    DIR *d = opendir("/proc");
    if (!d)
        return 3;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        char path[256], buf[8192];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        long n = slurp(path, buf, sizeof buf);
        printf("PID %s %s\n", e->d_name, n < 0 ? strerror(-n) : buf);
        snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
        n = slurp(path, buf, sizeof buf);
        printf("ENVIRON %s %ld\n", e->d_name, n);
        /* getpid() is the pid in its own namespace; /proc/self names the host pid. */
        char me[32] = "";
        readlink("/proc/self", me, sizeof me - 1);
        if (strcmp(e->d_name, me) != 0)
            peek_box(e->d_name);
    }
    closedir(d);
    for (int i = 1; i < argc; i++) {
        show(argv[i], "cmdline");
        show(argv[i], "environ");
        show(argv[i], "status");
        char path[256], link[4096];
        snprintf(path, sizeof path, "/proc/%s/cwd", argv[i]);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n >= 0)
            link[n] = 0;
        printf("TRY %s cwd: %s\n", argv[i], n < 0 ? strerror(errno) : link);
    }
    return 0;
}
