#!/usr/bin/env python3
# Prints how many arguments it was given.
import sys

print(len(sys.argv) - 1)
