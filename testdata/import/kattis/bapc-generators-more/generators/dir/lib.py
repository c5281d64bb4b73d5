#!/usr/bin/env python3
def output(n):
    print(int(n) + 1)
