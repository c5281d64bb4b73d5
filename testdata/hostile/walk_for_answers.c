/* Looks for answers by walking the whole file system (not /proc, /sys, /dev).
 * It prints "SUSPECT <path>" for every name an answer, a problem, the judge's configuration or
 * database could have (*.ans, *.in, *.out, *.toml, *.sqlite3, "secret", "problem", "answer"),
 * "FOUND <path>" for every readable file of up to 64 KiB outside the system folders (/usr, /lib*,
 * /bin, /sbin: the host's own, read-only and large; and the folders given as arguments, the
 * toolchains the configuration shows) that holds the secret answer marker (kept
 * obfuscated here, so that this program's own binary does not hold it), "LS <path>" for
 * the entries of /, /root, /home, /etc, /box, /tmp, /prog and /data, "ENV <var>" for its
 * environment, and at the end "WALKED <files> <dirs>".
 * Verdict: WA on the secret problem (it never prints an answer); exit 0 of its own.
 * Harm it must not do: find anything: no marker, no answer or problem file, no configuration,
 * no database, nothing of the judge's environment. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;
static char marker[] = "TFDSFU.BOTXFS.8g4b"; /* each byte + 1 */
static long files, dirs;
static char **skip;
static int nskip;

static int ends_with(const char *s, const char *t) {
    size_t a = strlen(s), b = strlen(t);
    return a >= b && strcmp(s + a - b, t) == 0;
}

static void scan(const char *path, off_t size) {
    static char buf[65536 + 1];
    if (size > 65536 || !strncmp(path, "/usr/", 5) || !strncmp(path, "/lib", 4) ||
        !strncmp(path, "/bin/", 5) || !strncmp(path, "/sbin/", 6))
        return;
    for (int i = 0; i < nskip; i++)
        if (!strncmp(path, skip[i], strlen(skip[i])))
            return;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, 65536);
    close(fd);
    if (n > 0 && memmem(buf, n, marker, strlen(marker)))
        printf("FOUND %s\n", path);
}

static void walk(const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (!d || depth > 40) {
        if (d)
            closedir(d);
        return;
    }
    dirs++;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, ".."))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", strcmp(dir, "/") ? dir : "", n);
        if (!strcmp(path, "/proc") || !strcmp(path, "/sys") || !strcmp(path, "/dev"))
            continue;
        if (ends_with(n, ".ans") || ends_with(n, ".in") || ends_with(n, ".out") ||
            ends_with(n, ".toml") || strstr(n, "sqlite") || strcasestr(n, "secret") ||
            strcasestr(n, "problem") || strcasestr(n, "answer"))
            printf("SUSPECT %s\n", path);
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(path, depth + 1);
        else if (S_ISREG(st.st_mode)) {
            files++;
            scan(path, st.st_size);
        }
    }
    closedir(d);
}

static void list(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            printf("LS %s/%s\n", dir, e->d_name);
    closedir(d);
}

int main(int argc, char **argv) {
    skip = argv + 1;
    nskip = argc - 1;
    for (char *p = marker; *p; p++)
        (*p)--;
    const char *top[] = {"/", "/root", "/home", "/etc", "/box", "/tmp", "/prog", "/data"};
    for (size_t i = 0; i < sizeof top / sizeof *top; i++)
        list(top[i]);
    for (char **e = environ; *e; e++)
        printf("ENV %s\n", *e);
    walk("/", 0);
    printf("WALKED %ld %ld\n", files, dirs);
    return 0;
}
