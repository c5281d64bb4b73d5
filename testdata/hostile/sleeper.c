/* Not an attack: a bystander. It sleeps until the wall-time limit stops it, so that tests of other
 * attacks have a sandboxed process to look for (its arguments carry a marker) or to protect.
 * Verdict: TLE (wall time). */
#include <unistd.h>

int main(void) {
    for (;;)
        pause();
}
