"""Random test: gen.py N SEED [negative] prints N numbers of at most 10^9 in absolute value."""
import random
import sys

n, seed = int(sys.argv[1]), int(sys.argv[2])
negative = len(sys.argv) > 3 and sys.argv[3] == "negative"
random.seed(seed)
low, high = (-(10**9), -1) if negative else (-(10**9), 10**9)
print(n)
print(*(random.randint(low, high) for _ in range(n)))
