#include <iostream>
int main() {
    std::ios::sync_with_stdio(false);
    int t;
    long long a, b;
    std::cin >> t;
    while (t--) {
        std::cin >> a >> b;
        std::cout << a + b << "\r\n";  // CRLF must not matter
    }
}
