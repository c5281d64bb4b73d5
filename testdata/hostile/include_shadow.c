/* Compile-time leak: includes the host's /etc/shadow.
 * Verdict: CE.
 * Harm it must not do: put any of the host's shadow file into the compile-error text (the
 * sandboxed compiler sees a minimal /etc without it). */
#include "/etc/shadow"
int main(void) { return 0; }
