# CMS validator: reads the input file named by its argument; exit 0 when valid.
import sys

a, b = map(int, open(sys.argv[1]).read().split())
sys.exit(0 if 0 <= a <= 2 * 10**9 and 0 <= b <= 2 * 10**9 else 1)
