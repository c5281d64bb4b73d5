# Ends with the exit() builtin, as many contestants' programs do (the site module provides it;
# every judge's Python has it).
t = int(input())
for _ in range(t):
    a, b = map(int, input().split())
    print(a + b)
exit(0)
