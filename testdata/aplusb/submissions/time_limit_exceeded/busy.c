/* Spins forever on the CPU. */
int main(void) {
    volatile unsigned long x = 0;
    for (;;) x++;
}
