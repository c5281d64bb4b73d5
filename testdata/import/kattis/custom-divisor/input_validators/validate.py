#!/usr/bin/env python3
# Accepts one integer n with 2 <= n <= 10^9 on one line (exit 42), rejects anything else (43).
import re
import sys

data = sys.stdin.read()
m = re.fullmatch(r"([1-9][0-9]{0,9})\n", data)
if not m or not 2 <= int(m.group(1)) <= 10**9:
    print("expected one integer from 2 to 10^9 on one line", file=sys.stderr)
    sys.exit(43)
sys.exit(42)
