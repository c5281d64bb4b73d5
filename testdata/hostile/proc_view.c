/* Prints what /proc tells a program about the host: the mount table, the kernel's command line,
 * and which process ids /proc lists (with its own pid as the program sees it).
 * Harm it must not do: show a host path (the judge's scratch or cache folder) or the kernel's
 * boot command line, or list host pids: /proc must be the run's own. */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

static void dump(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("%s: unreadable\n", path);
        return;
    }
    char line[4096];
    while (fgets(line, sizeof line, f))
        printf("%s: %s", path, line);
    fclose(f);
}

int main(void) {
    printf("GETPID %d\n", (int)getpid());
    dump("/proc/self/mountinfo");
    dump("/proc/cmdline");
    DIR *d = opendir("/proc");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
                printf("PROC %s\n", e->d_name);
        closedir(d);
    }
    char self[64] = {0};
    if (readlink("/proc/self", self, sizeof self - 1) > 0)
        printf("SELF %s\n", self);
    return 0;
}
