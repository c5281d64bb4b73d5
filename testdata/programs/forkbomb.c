/* A fork bomb: must end as a verdict and leave no process behind. */
#include <unistd.h>
int main(void) {
    for (;;) fork();
}
