/* Writes outside the box. argv[1] is a name chosen by the test; the program tries to create a file
 * of that name in /, /usr, /etc, /lib, /dev, /prog (its own compiled program's folder) and /tmp,
 * to overwrite /prog/main, and to change a host-wide sysctl; it prints one line per attempt:
 * "<path>: ok" or "<path>: <error>". Only /box and /tmp are writable, and /tmp is a private tmpfs.
 * With argv[2] = "check" it only reports whether its earlier files in /box and /tmp still exist
 * ("<path>: present" / "<path>: absent"): a later run must never see an earlier run's files.
 * Verdict: AC of its own (exit 0); the test judges it by the host file system.
 * Harm it must not do: leave any file outside the sandbox, alter the cached program, change the
 * host's kernel settings, or pass files to a later run. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void attempt(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        printf("%s: %s\n", path, strerror(errno));
        return;
    }
    int ok = write(fd, "escaped\n", 8) == 8;
    close(fd);
    printf("%s: %s\n", path, ok ? "ok" : strerror(errno));
}

static void overwrite(const char *path, const char *text) {
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        printf("%s: %s\n", path, strerror(errno));
        return;
    }
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    printf("%s: %s\n", path, n == (ssize_t)strlen(text) ? "ok" : strerror(errno));
}

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    const char *name = argv[1];
    if (argc > 2 && strcmp(argv[2], "check") == 0) {
        const char *dirs[] = {"/box", "/tmp"};
        for (int i = 0; i < 2; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[i], name);
            printf("%s: %s\n", path, access(path, F_OK) == 0 ? "present" : "absent");
        }
        return 0;
    }
    const char *dirs[] = {"/", "/usr", "/usr/bin", "/etc", "/lib", "/dev", "/proc", "/prog", "/box/..", "/tmp", "/box"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        attempt(dirs[i], name);
    overwrite("/prog/main", "overwritten");
    overwrite("/proc/sys/kernel/printk_ratelimit_burst", "77\n");
    overwrite("/proc/sys/kernel/hostname", "escaped\n");
    return 0;
}
