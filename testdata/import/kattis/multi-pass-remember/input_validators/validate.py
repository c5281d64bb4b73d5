#!/usr/bin/env python3
# Accepts "encode x" with 1 <= x <= 10^9 on one line (exit 42), rejects anything else (43).
import re
import sys

data = sys.stdin.read()
m = re.fullmatch(r"encode ([1-9][0-9]{0,9})\n", data)
if not m or int(m.group(1)) > 10**9:
    print("expected \"encode x\" with 1 <= x <= 10^9", file=sys.stderr)
    sys.exit(43)
sys.exit(42)
