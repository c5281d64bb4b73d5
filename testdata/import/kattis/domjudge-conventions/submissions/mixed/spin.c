/* In a folder with no verdict of its own: the header decides.
 * @EXPECTED_RESULTS@: TIMELIMIT
 */
int main(void) {
    volatile unsigned long x = 0;
    for (;;) x++;
}
