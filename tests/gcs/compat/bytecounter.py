"""A TCP relay that counts the bytes a server sends: what the GCS puts on the wire for a probe."""
import socket
import threading


class ByteCounter:
    """Listens on 127.0.0.1:<port> and relays to `target`; counts the bytes the server sent."""

    def __init__(self, target_host, target_port):
        self.target = (target_host, target_port)
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = self.server.getsockname()[1]
        self.lock = threading.Lock()
        self.from_server = 0
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def reset(self):
        with self.lock:
            self.from_server = 0
            self.connections = 0

    def total(self):
        with self.lock:
            return self.from_server

    def _accept(self):
        while True:
            client, _ = self.server.accept()
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.connections += 1
            threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, src, dst, count):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if count:
                    with self.lock:
                        self.from_server += len(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
