"""The fake Redis servers' listening socket: 127.0.0.1 on a free port, written to `port_file`
atomically (a test polls for the file, then reads a whole port)."""
import os
import socket


def listen_and_publish(port_file, backlog):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(backlog)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(listener.getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    return listener
