mode, v = input().split()
v = int(v)
print(v + 1 if mode == "encode" else v - 1)
