#!/usr/bin/env pypy3
# Time limit exceeded: spins forever.
i = 0
while True:
    i += 1
