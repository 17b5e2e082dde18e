#!/usr/bin/python3
"""FAKE Redis (test only, not Redis): a server whose SCAN never ends.
  fake_scan_server.py PORT_FILE NAMESPACE
Answers AUTH and PING as Redis does, TYPE with "none" (no old-layout hash), HLEN with 1 and
UNLINK with the number of keys named; every SCAN returns cursor 7 (never 0) and one new key of
NAMESPACE (RAY<ns>@T<n>), as a server that lies about its cursor would — a cleanup without a
deadline would run for ever. Anything else: an error reply. Writes the port it listens on
(127.0.0.1) to PORT_FILE; runs until killed."""
import sys
import threading

from listener import listen_and_publish

port_file, ns = sys.argv[1], sys.argv[2]
listener = listen_and_publish(port_file, 16)


def bulk(text):
    data = text.encode()
    return b"$%d\r\n%s\r\n" % (len(data), data)


def commands(conn):
    """Yields each command (a list of str) of RESP arrays of bulk strings read from `conn`."""
    buf = b""

    def line():
        nonlocal buf
        while b"\r\n" not in buf:
            chunk = conn.recv(65536)
            if not chunk:
                raise EOFError
            buf += chunk
        head, buf = buf.split(b"\r\n", 1)
        return head

    def exactly(n):
        nonlocal buf
        while len(buf) < n + 2:
            chunk = conn.recv(65536)
            if not chunk:
                raise EOFError
            buf += chunk
        data, buf = buf[:n], buf[n + 2:]
        return data

    while True:
        count = int(line()[1:])
        yield [exactly(int(line()[1:])).decode(errors="replace") for _ in range(count)]


def serve(conn):
    n = 0
    try:
        for argv in commands(conn):
            name = argv[0].upper()
            if name == "AUTH":
                reply = b"+OK\r\n"
            elif name == "PING":
                reply = b"+PONG\r\n"
            elif name == "TYPE":
                reply = b"+none\r\n"
            elif name == "HLEN":
                reply = b":1\r\n"
            elif name == "HRANDFIELD":
                reply = b"*0\r\n"
            elif name == "UNLINK":
                reply = b":%d\r\n" % (len(argv) - 1)
            elif name == "SCAN":
                n += 1
                reply = b"*2\r\n" + bulk("7") + b"*1\r\n" + bulk(f"RAY{ns}@T{n}")
            else:
                reply = b"-ERR unknown command\r\n"
            conn.sendall(reply)
    except (EOFError, OSError, ValueError):
        pass
    conn.close()


while True:
    c, _ = listener.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
