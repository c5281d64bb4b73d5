#!/usr/bin/env python3
# Fails on an odd seed (as a generator whose random case came out invalid).
import sys

seed = int(sys.argv[1])
if seed % 2 == 1:
    sys.exit("an odd seed")
print(seed)
