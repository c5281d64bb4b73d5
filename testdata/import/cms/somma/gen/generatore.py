# Prints "a b" with 0 <= a, b <= MAX, from a seeded generator: generatore.py ID MAX SEED.
import random
import sys

_, _id, mx, seed = sys.argv
r = random.Random(int(seed))
print(r.randint(0, int(mx)), r.randint(0, int(mx)))
