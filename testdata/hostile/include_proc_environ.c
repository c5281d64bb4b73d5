/* Compile-time leak: includes the environment of the host's first process and of the compiler's
 * parent through /proc.
 * Verdict: CE.
 * Harm it must not do: put anything of another process's environment into the compile-error text
 * (/proc shows the compiler only its own processes). */
#include "/proc/1/environ"
int main(void) { return 0; }
