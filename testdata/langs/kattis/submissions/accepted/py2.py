#!/usr/bin/env python2
# Python 2 (the shebang says so, as Kattis reads it): skipped where no python2 exists.
import sys

data = sys.stdin.read().split()
t = int(data[0])
for i in range(t):
    print int(data[1 + 2 * i]) + int(data[2 + 2 * i])
