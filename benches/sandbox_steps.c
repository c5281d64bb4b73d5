/* What single steps of a sandboxed run cost on this host, each on its own (median of N), to tell
 * where the per-run overhead of `cargo bench --bench overhead` goes. Needs root.
 *
 *   cc -O2 -o /tmp/sandbox_steps benches/sandbox_steps.c && /tmp/sandbox_steps [N]
 *
 * Steps: fork + exit + wait (the floor), the same with a new pid namespace, the same with a
 * /proc of that namespace mounted (and the previous one unmounted, /proc/cmdline masked) as the
 * per-run /proc of the issue 9 hardening did, attaching a seccomp filter of the deny list's size
 * with a listener (as a chain of tests, and deciding every number at once), reading /proc/self/net/unix (the socket check after a run), one control file
 * of a cgroup read with pread versus seek + read, and a new network namespace.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int n = 500;
static double *samples;
static char procdir[256];

static void report(const char *what) {
    qsort(samples, n, sizeof *samples, cmp);
    printf("%-58s median %8.1f us  p10 %8.1f us\n", what, samples[n / 2], samples[n / 10]);
}

static void child_proc(void) {
    /* As init of a fresh pid namespace: replace /proc with this namespace's. */
    umount2(procdir, MNT_DETACH);
    if (mount("proc", procdir, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2") != 0)
        _exit(1);
    char cmdline[300];
    snprintf(cmdline, sizeof cmdline, "%s/cmdline", procdir);
    mount("/dev/null", cmdline, NULL, MS_BIND, NULL);
    _exit(0);
}

static void fork_wait(unsigned long flags, void (*body)(void)) {
    for (int i = 0; i < n; i++) {
        double t = now_us();
        pid_t p = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
        if (p == 0) {
            if (body)
                body();
            _exit(0);
        }
        int st;
        waitpid(p, &st, 0);
        samples[i] = now_us() - t;
    }
}

static struct sock_filter filter[140];

static struct sock_filter *attach = filter;

static void child_seccomp(void) {
    struct sock_fprog prog = {.len = 138, .filter = attach};
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog) < 0)
        _exit(1);
    _exit(0);
}

static void file_read(const char *path, int use_pread) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        printf("%s: cannot open\n", path);
        return;
    }
    char buf[1024];
    for (int i = 0; i < n; i++) {
        double t = now_us();
        if (use_pread) {
            if (pread(fd, buf, sizeof buf, 0) < 0)
                break;
        } else {
            struct stat st;
            lseek(fd, 0, SEEK_SET);
            fstat(fd, &st);
            lseek(fd, 0, SEEK_CUR);
            while (read(fd, buf, 32) > 0) {
            }
        }
        samples[i] = now_us() - t;
    }
    close(fd);
}

int main(int argc, char **argv) {
    if (argc > 1)
        n = atoi(argv[1]);
    samples = calloc(n, sizeof *samples);
    for (int i = 0; i < 137; i++)
        filter[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1000 + i, 0, 0);
    filter[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
    filter[137] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);

    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        perror("unshare/mount (needs root)");
        return 1;
    }
    char tmpl[] = "/tmp/steps-XXXXXX";
    char *dir = mkdtemp(tmpl);
    snprintf(procdir, sizeof procdir, "%s", dir);
    mount("proc", procdir, "proc", 0, NULL);

    fork_wait(0, NULL);
    report("fork + exit + wait");
    fork_wait(CLONE_NEWPID, NULL);
    report("... in a new pid namespace");
    fork_wait(CLONE_NEWPID, child_proc);
    report("... in a new pid namespace with its own /proc mounted");
    fork_wait(0, child_seccomp);
    report("fork + seccomp filter, a chain of 137 tests + exit");
    /* The same length, but every number is decided by the first test: what the kernel's
     * per-number emulation at attach time (the cache of always-allowed calls) costs. */
    static struct sock_filter quick[140];
    memcpy(quick, filter, sizeof quick);
    quick[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0, 135, 0);
    attach = quick;
    fork_wait(0, child_seccomp);
    report("... the same filter deciding every number at once");
    file_read("/proc/self/net/unix", 1);
    report("pread /proc/self/net/unix (no socket)");
    char cg[512];
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[512], *path = NULL;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, ":cpuacct") && (path = strrchr(line, ':'))) {
            path[strcspn(path, "\n")] = 0;
            break;
        }
    if (f)
        fclose(f);
    snprintf(cg, sizeof cg, "/sys/fs/cgroup/cpuacct%s/cpuacct.usage", path ? path + 1 : "");
    file_read(cg, 1);
    report("cgroup cpuacct.usage: pread");
    file_read(cg, 0);
    report("cgroup cpuacct.usage: seek + fstat + seek + reads");
    int m = n;
    n = m < 20 ? m : 20;
    for (int i = 0; i < n; i++) {
        double t = now_us();
        unshare(CLONE_NEWNET);
        samples[i] = now_us() - t;
    }
    report("unshare a new network namespace (20 times)");
    umount2(procdir, MNT_DETACH);
    rmdir(procdir);
    return 0;
}
