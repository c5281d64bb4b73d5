lo, hi = 1, 1000
while lo <= hi:
    mid = (lo + hi) // 2
    print(mid, flush=True)
    reply = input().strip()
    if reply == "correct":
        break
    if reply == "higher":
        lo = mid + 1
    else:
        hi = mid - 1
