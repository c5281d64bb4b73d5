#!/usr/bin/env python3
# Accepts "a b" with 0 <= a, b <= 10^6 on one line (exit 42), rejects anything else (exit 43).
import re
import sys

data = sys.stdin.read()
m = re.fullmatch(r"(0|[1-9][0-9]{0,6}) (0|[1-9][0-9]{0,6})\n", data)
if not m or max(int(m.group(1)), int(m.group(2))) > 10**6:
    print("expected two integers from 0 to 10^6 on one line", file=sys.stderr)
    sys.exit(43)
sys.exit(42)
