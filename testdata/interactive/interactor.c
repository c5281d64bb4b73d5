/* Kattis-protocol interactor for the ojd interactive fixtures (original code):
 *   interactor input answer feedback_dir < program_output > program_input
 * The input file holds a mode:
 *   "guess N"  the number game: the program guesses in 1..1000 and is told "lower", "higher" or
 *              "correct"; more than 10 guesses, a guess out of range or end of file is wrong;
 *   "spin"     the interactor loops forever (both sides loop);
 *   "crash"    the interactor aborts (an interactor failure: a judge error);
 *   "drain"    the interactor reads everything until end of file, then accepts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *feedback;

static void say(const char *file, const char *text) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", feedback, file);
    FILE *f = fopen(path, "a");
    if (f) {
        fprintf(f, "%s\n", text);
        fclose(f);
    }
}

static void wrong(const char *team, const char *judge) {
    say("teammessage.txt", team);
    say("judgemessage.txt", judge);
    exit(43);
}

int main(int argc, char **argv) {
    if (argc < 4) return 1;
    feedback = argv[3];
    FILE *in = fopen(argv[1], "r");
    char mode[16] = "";
    if (!in || fscanf(in, "%15s", mode) != 1) return 1;
    if (!strcmp(mode, "spin")) {
        volatile unsigned long x = 0;
        for (;;) x++;
    }
    if (!strcmp(mode, "crash")) abort();
    if (!strcmp(mode, "drain")) {
        while (getchar() != EOF) {
        }
        exit(42);
    }
    int secret;
    if (fscanf(in, "%d", &secret) != 1) return 1;
    for (int guesses = 1;; guesses++) {
        int g;
        if (scanf("%d", &g) != 1) wrong("no guess (end of output)", "the program stopped guessing");
        if (g < 1 || g > 1000) wrong("guess out of range", "a guess outside 1..1000");
        if (g == secret) {
            printf("correct\n");
            fflush(stdout);
            exit(42);
        }
        if (guesses >= 10) wrong("too many guesses", "no correct guess in 10");
        printf(g < secret ? "higher\n" : "lower\n");
        fflush(stdout);
    }
}
