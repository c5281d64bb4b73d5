# Ends with the quit() builtin after its answers (the site module provides it).
t = int(input())
for _ in range(t):
    a, b = map(int, input().split())
    print(a + b)
quit()
