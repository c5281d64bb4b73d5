/* Goes after the test's input file through its own standard input: reopens /proc/self/fd/0 for
 * writing and overwrites it, and reads the link's target to open the answer file beside it
 * (`.in` -> `.ans`) and print that instead of solving.
 * Harm it must not do: change the host's input file, or reach the answer (the verdict must not
 * be AC and the secret answer must not be printed). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
    char path[4096] = {0};
    ssize_t n = readlink("/proc/self/fd/0", path, sizeof path - 8);
    fprintf(stderr, "stdin is %s\n", n > 0 ? path : "?");
    int w = open("/proc/self/fd/0", O_WRONLY);
    if (w >= 0) {
        ssize_t k = write(w, "PWNED\n", 6);
        fprintf(stderr, "rewrote stdin: %zd\n", k);
        close(w);
    }
    size_t len = strlen(path);
    if (n > 0 && len > 3 && strcmp(path + len - 3, ".in") == 0) {
        strcpy(path + len - 3, ".ans");
        FILE *f = fopen(path, "r");
        if (f) {
            char buf[4096];
            size_t got;
            while ((got = fread(buf, 1, sizeof buf, f)) > 0)
                fwrite(buf, 1, got, stdout);
            return 0;
        }
    }
    printf("0\n");
    return 0;
}
