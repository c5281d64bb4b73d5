/* Prints the uid it runs as and whether it can see the host's /etc/hostname. */
#include <stdio.h>
#include <unistd.h>
int main(void) {
    printf("uid %d\n", (int)getuid());
    return 0;
}
