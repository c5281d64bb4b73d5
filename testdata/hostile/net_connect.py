# Network connect from Python: argv[1] is the port of a TCP listener on the host's 127.0.0.1.
# Tries it and its neighbours, over IPv4 and IPv6, as a student's script might.
# Every socket(AF_INET/AF_INET6) fails with EACCES ("Permission denied"); the interpreter must
# still start (seccomp is a deny list that CPython lives with).
# Harm it must not do: reach the host's listener.
import socket
import sys

port = int(sys.argv[1])
for host in ("127.0.0.1", "::1", "localhost"):
    for p in range(port - 2, port + 3):
        try:
            with socket.create_connection((host, p), timeout=1) as s:
                s.sendall(b"hello from the sandbox\n")
                print("connected", host, p)
        except OSError as e:
            print("failed", host, p, e)
