/* Compile-time leak: includes a test answer by its absolute path on the host. The test writes the
 * real path in place of @ANSWER@ at test time (the repository's location is not fixed).
 * Verdict: CE (the path does not exist inside the sandbox).
 * Harm it must not do: put the answer into the compile-error text. */
#include "@ANSWER@"
int main(void) { return 0; }
