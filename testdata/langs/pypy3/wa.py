#!/usr/bin/env pypy3
# Wrong answer: forgets the last pair.
import sys

data = sys.stdin.buffer.read().split()
t = int(data[0])
print("\n".join(str(int(data[1 + 2 * i]) + int(data[2 + 2 * i])) for i in range(t - 1)))
