#!/usr/bin/env python3
import sys
from pathlib import Path

name, n = sys.argv[1], sys.argv[2]
Path(name + ".in").write_text(n + "\n")
Path(name + ".ans").write_text(n + "\n")
print("not the input")
