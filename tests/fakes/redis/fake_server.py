#!/usr/bin/python3
"""FAKE servers (test only, not Redis): the ways a "Redis" address can lie.
  fake_server.py MODE PORT_FILE
  silent   accepts TCP connections and never answers (a hung proxy, a full accept queue's peer)
  garbage  answers every connection with bytes that are not RESP (an HTTP server on the port)
  trickle  answers "+PONG" one byte every 0.8 s, never ending a reply (a server that stalls mid-reply)
Writes the port it listens on (127.0.0.1, chosen by the kernel) to PORT_FILE; runs until killed."""
import sys
import threading
import time

from listener import listen_and_publish

mode, port_file = sys.argv[1], sys.argv[2]
listener = listen_and_publish(port_file, 64)
held = []  # silent: keep connections open, unanswered


def serve(conn):
    try:
        if mode == "garbage":
            conn.recv(4096)
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            time.sleep(0.2)
            conn.close()
        elif mode == "trickle":
            conn.recv(4096)
            while True:
                conn.sendall(b"+")
                time.sleep(0.8)
    except OSError:
        pass


while True:
    conn, _ = listener.accept()
    if mode == "silent":
        held.append(conn)
    else:
        threading.Thread(target=serve, args=(conn,), daemon=True).start()
