"""FAKE Ray CLI, for tests only: the node's processes, directories and addresses.

The fake's gcs_server and raylet are the C++ fake (tests/fakes/gcs, `fake_gcs serve` / `fake_gcs
raylet`), run through symlinks named gcs_server and raylet in the session directory, so that
their process names (/proc/PID/comm) are Ray's and `ray stop` can find them the way Ray does.
Children are spawned as Ray's services.start_ray_process does: subprocess.Popen with the parent's
whole environment, output to log files, and, under --block only, PR_SET_PDEATHSIG=SIGKILL
(Ray's set_kill_on_parent_death_linux; without --block they outlive `ray start`).
"""

import ctypes
import datetime
import errno
import json
import os
import signal
import socket
import subprocess
import time

PR_SET_PDEATHSIG = 1
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", ".."))


def find_fake_gcs():
    """$FAKE_GCS, else the newest build/…/tests/fakes/fake_gcs under the repository."""
    explicit = os.environ.get("FAKE_GCS")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    found = []
    for entry in os.listdir(REPO):
        path = os.path.join(REPO, entry, "tests", "fakes", "fake_gcs")
        if entry.startswith("build") and os.access(path, os.X_OK):
            found.append((os.path.getmtime(path), path))
    return max(found)[1] if found else None


def temp_root(temp_dir=None):
    """Ray's temp dir: --temp-dir, else $RAY_TMPDIR/ray, else /tmp/ray (ray._private.utils)."""
    if temp_dir:
        return os.path.abspath(temp_dir)
    return os.path.join(os.environ.get("RAY_TMPDIR") or "/tmp", "ray")


def new_session_dir(root):
    stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H-%M-%S_%f")
    session = os.path.join(root, f"session_{stamp}_{os.getpid()}")
    for sub in ("logs", "sockets", "bin"):
        os.makedirs(os.path.join(session, sub), exist_ok=True)
    latest = os.path.join(root, "session_latest")
    tmp = f"{latest}.{os.getpid()}"
    os.symlink(session, tmp)
    os.replace(tmp, latest)
    return session


def node_ip_from_perspective(address="8.8.8.8:53"):
    """Ray's node_ip_address_from_perspective: the source address of a UDP 'connect' (no packet is
    sent); on ENETUNREACH the address of this host's name; else 127.0.0.1."""
    host, _, port = address.rpartition(":")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect((host, int(port)))
        return s.getsockname()[0]
    except OSError as e:
        if e.errno == errno.ENETUNREACH:
            try:
                return socket.gethostbyname(socket.getfqdn(socket.gethostname()))
            except OSError:
                pass
        return "127.0.0.1"
    finally:
        s.close()


def resolve_ip_for_localhost(address):
    """Ray's resolve_ip_for_localhost: 127.0.0.1/localhost become the node's routable IP."""
    host, sep, rest = address.partition(":")
    if host in ("127.0.0.1", "localhost"):
        return node_ip_from_perspective() + sep + rest
    return address


def _set_pdeathsig():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class Child:
    def __init__(self, kind, popen):
        self.kind = kind
        self.popen = popen


def spawn(session, kind, fake_gcs, args, fate_share):
    """Starts `kind` (gcs_server | raylet) as Ray would; output in logs/<kind>.out and .err."""
    link = os.path.join(session, "bin", kind)
    if not os.path.lexists(link):
        os.symlink(fake_gcs, link)
    logs = os.path.join(session, "logs")
    with open(os.path.join(logs, f"{kind}.out"), "ab") as out, open(os.path.join(logs, f"{kind}.err"), "ab") as err:
        popen = subprocess.Popen([link] + args, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                 env=os.environ.copy(), close_fds=True,
                                 preexec_fn=_set_pdeathsig if fate_share else None)
    return Child(kind, popen)


def wait_for_file(path, child, timeout_s):
    """Waits for a port file the child writes once ready; None if it exits or time runs out."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with open(path, encoding="ascii") as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            pass
        if child.popen.poll() is not None:
            return None
        time.sleep(0.05)
    return None


def kill_all(children, graceful):
    """Ray's Node.kill_all_processes: the raylet first, then the rest; gracefully = SIGTERM, one
    second, then SIGKILL (node.py _kill_process_impl)."""
    order = sorted(children, key=lambda c: 0 if c.kind == "raylet" else 1)
    for child in order:
        p = child.popen
        if p.poll() is not None:
            continue
        if graceful:
            p.terminate()
            try:
                p.wait(1)
            except subprocess.TimeoutExpired:
                pass
        if p.poll() is None:
            p.kill()
            p.wait()


def write_session_info(session, info):
    path = os.path.join(session, "fake_ray.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1, sort_keys=True)
    os.rename(path + ".tmp", path)


def last_error_lines(session, kind, count=10):
    try:
        with open(os.path.join(session, "logs", f"{kind}.err"), encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()[-count:]
    except OSError:
        return []
