// DOMjudge knows .c++ as C++; ojd's profile does not, so the import renames it .cpp.
#include <iostream>
int main() {
    long long n;
    if (!(std::cin >> n)) return 1;
    std::cout << 2 * n << "\n";
}
