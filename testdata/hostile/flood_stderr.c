/* Output flood on stderr, ignoring SIGXFSZ so that only the supervisor can stop it.
 * Verdict: OLE.
 * Harm it must not do: fill the host's disk (the stderr file must stay within the output limit,
 * give or take the file-size backstop) or the judge's memory. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

int main(void) {
    static char buf[1 << 16];
    memset(buf, 'x', sizeof buf);
    signal(SIGXFSZ, SIG_IGN);
    for (;;)
        write(2, buf, sizeof buf);
}
