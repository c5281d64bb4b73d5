/* Crashes at once, before reading or writing anything. */
#include <stdlib.h>
int main(void) { abort(); }
