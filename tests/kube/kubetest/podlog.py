"""Every container start's log, read from the node's own files as the kubelet writes them
(`<podLogsDir>/<namespace>_<pod>_<uid>/<container>/<restart>.log`, the CRI log format), and kept:
the kubelet deletes a dead container's log once a newer one has ended (its container GC keeps
one dead container per pod), and `kubectl logs` shows only the current and previous start.

    logs = NodeLogs(pod_logs_dir, namespace); logs.poll()   # a watcher thread polls
    logs.text(uid, "ray", 0)                                 # start 0 of that pod's container
"""
import os
import threading
import time


def parse_cri(data):
    """Lines of the CRI log format: `<time> <stream> <P|F> <text>`; P is a partial line that the
    next record continues. Returns [(time, stream, text)] of complete lines, and the bytes of an
    unfinished record (no newline yet)."""
    lines, pending = [], ""
    *records, rest = data.split("\n")
    for record in records:
        parts = record.split(" ", 3)
        if len(parts) < 4:
            continue
        stamp, stream, tag, text = parts
        pending += text
        if tag == "F":
            lines.append((stamp, stream, pending))
            pending = ""
    return lines, rest


class NodeLogs:
    def __init__(self, root, namespace):
        self.root, self.namespace = root, namespace
        self.lock = threading.Lock()
        # One reader at a time: the watcher thread and a test's own look both poll, and two reads
        # from the same offset would duplicate a record, or splice one's rest into the other's.
        self.reading = threading.Lock()
        self.offsets = {}   # path -> bytes read
        self.partial = {}   # path -> unfinished record
        self.lines = {}     # (uid, container, restart) -> [(time, stream, text)]

    def poll(self):
        with self.reading:
            self._poll()

    def _poll(self):
        prefix = self.namespace + "_"
        try:
            pods = [d for d in os.listdir(self.root) if d.startswith(prefix)]
        except FileNotFoundError:
            return
        for pod_dir in pods:
            uid = pod_dir.rsplit("_", 1)[-1]
            base = os.path.join(self.root, pod_dir)
            for container in _listdir(base):
                for name in _listdir(os.path.join(base, container)):
                    if name.endswith(".log") and name[:-4].isdigit():
                        self._read(os.path.join(base, container, name), (uid, container, int(name[:-4])))

    def _read(self, path, key):
        try:
            with open(path, "rb") as f:
                f.seek(self.offsets.get(path, 0))
                data = f.read()
        except OSError:
            return
        if not data:
            return
        self.offsets[path] = self.offsets.get(path, 0) + len(data)
        lines, rest = parse_cri(self.partial.get(path, "") + data.decode("utf-8", "replace"))
        self.partial[path] = rest
        with self.lock:
            self.lines.setdefault(key, []).extend(lines)

    def text(self, uid, container, restart):
        with self.lock:
            return "\n".join(t for _, _, t in self.lines.get((uid, container, restart), []))

    def starts(self, uid, container):
        with self.lock:
            return sorted(r for (u, c, r) in self.lines if u == uid and c == container)


def _listdir(path):
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def follow(logs, stop, period=0.25):
    while not stop.is_set():
        logs.poll()
        time.sleep(period)
    logs.poll()
