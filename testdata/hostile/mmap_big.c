/* Maps a big read-only file (argv[1], larger than the memory limit) and touches every page, then
 * reads it again through a small buffer: only clean page cache, which the kernel may drop.
 * Verdict: AC (page cache is reclaimed, not a reason for MLE).
 * Harm it must not do: leave its page cache charged to the next run of the same sandbox. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        return 3;
    const volatile unsigned char *p = mmap(0, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return 4;
    unsigned long sum = 0;
    for (off_t i = 0; i < st.st_size; i += 4096)
        sum += p[i];
    munmap((void *)p, st.st_size);
    static unsigned char buf[1 << 16];
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0)
        sum += buf[0];
    printf("%lld %lu\n", (long long)st.st_size, sum);
    return 0;
}
