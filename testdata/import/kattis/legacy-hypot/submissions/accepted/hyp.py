import math

a, b = map(int, input().split())
print("%.10g" % math.hypot(a, b))
