/* Exits at once without a guess. */
int main(void) { return 0; }
