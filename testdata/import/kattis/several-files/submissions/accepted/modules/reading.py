"""Reading the input: a module of the submission, imported by solve.py."""
import sys


def read():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    return [int(x) for x in data[1 : n + 1]]
