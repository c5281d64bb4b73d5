/* Reads 48 MiB of /dev/urandom into memory it keeps.
 * Verdict: AC, with a peak memory of about 48 MiB: the device neither hides memory from the
 * accounting nor adds any.
 * Harm it must not do: none; the danger is wrong accounting. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
    size_t n = 48u << 20, got = 0;
    unsigned char *p = malloc(n);
    int fd = open("/dev/urandom", O_RDONLY);
    if (!p || fd < 0)
        return 3;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r <= 0)
            return 4;
        got += r;
    }
    unsigned long sum = 0;
    for (size_t i = 0; i < n; i += 4096)
        sum += p[i];
    printf("%lu\n", sum);
    return 0;
}
