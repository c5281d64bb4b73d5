// Output validator: `validate input answer feedback_dir < team_output`.
// The answer holds the smallest proper divisor, or -1 for a prime; any proper divisor is right.
#include <fstream>
#include <iostream>
#include "validate.h"

int main(int argc, char** argv) {
    if (argc < 4) return 1;
    feedback_dir = argv[3];
    std::ifstream in(argv[1]), ans(argv[2]);
    long long n, smallest;
    if (!(in >> n) || !(ans >> smallest)) return 1;  // judge error: bad test data
    long long d;
    if (!(std::cin >> d)) reject("no integer in the output", "output is not an integer");
    std::string extra;
    if (std::cin >> extra) reject("extra output after the divisor", "trailing: " + extra);
    if (smallest == -1) {
        if (d != -1) reject("wrong answer", std::to_string(n) + " is prime, got " + std::to_string(d));
        accept();
    }
    if (d <= 1 || d >= n || n % d != 0)
        reject("not a proper divisor", std::to_string(d) + " does not properly divide " + std::to_string(n));
    accept();
}
