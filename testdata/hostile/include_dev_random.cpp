// Compile-time hang: includes /dev/random, which never ends.
// Verdict: CE, "compilation exceeded its time limit" (or its memory limit).
// Harm it must not do: hang the judge: it must end by the compile time limit.
#include "/dev/random"
int main() { return 0; }
