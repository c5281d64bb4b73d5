import sys

data = sys.stdin.read().split()
values = sorted(map(int, data[1:]))
print(values[-1] + values[-2])
