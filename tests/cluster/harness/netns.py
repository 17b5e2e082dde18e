"""The cluster network: a "node" network namespace holding one bridge, and one namespace per
pod (and one for the cluster DNS) with a veth into that bridge.

The node namespace has no uplink at all: nothing in it or behind it can reach the machine's
own interfaces or beyond, whatever routes a process adds. Pods get an address from
198.18.0.0/15 (RFC 2544 benchmarking space), the connected route and, as a CNI gives them, a
default route to the node (so Ray's "source address toward 8.8.8.8" finds the pod IP); the
node's own default route is `unreachable`, so anything sent out is answered at once with
an ICMP error (a connect fails with "No route to host") and goes no further.
`check_isolated` asserts all of it.

Everything is named `rlc-<run id>-...`, so parallel runs never share a name,
and a run killed before its teardown is found and removed by `sweep_stale` (a run is alive
while it holds the flock on its state directory's lock file).
"""
import ctypes
import fcntl
import ipaddress
import json
import os
import shutil
import signal
import subprocess

PREFIX = "rlc-"
STATE_ROOT = "/run/raylaunch-cluster"
NETNS_DIR = "/run/netns"
SUBNET = ipaddress.ip_network("198.18.0.0/15")
NODE_IP = "198.18.0.1"  # the bridge: where the kubelet's httpGet probes come from
DNS_IP = "198.18.0.10"  # the cluster DNS Service (kube-dns's usual .10)
FIRST_POD_IP = ipaddress.ip_address("198.18.1.1")
CLONE_NEWNET = 0x40000000

_libc = ctypes.CDLL(None, use_errno=True)


class NetworkError(Exception):
    pass


def ip(*args, stdin=None):
    proc = subprocess.run(["ip", *args], input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        raise NetworkError(f"ip {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def run_checked(argv):
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise NetworkError(f"{' '.join(argv)}: {proc.stderr.strip()}")
    return proc.stdout


def unmount_under(path):
    """Unmounts (lazily) every mount at or below `path` in this mount namespace: the
    memory-backed emptyDir volumes."""
    prefix = os.path.realpath(path).rstrip("/") + "/"
    with open("/proc/self/mountinfo") as f:
        points = [line.split()[4].encode().decode("unicode_escape") for line in f]
    for point in sorted({p for p in points if (p + "/").startswith(prefix)}, key=len, reverse=True):
        subprocess.run(["umount", "-l", point], capture_output=True)


def enter_netns(name):
    """Moves the calling thread (only it) into a network namespace: sockets it opens from now
    on live there. Used by the probe threads, which probe from the node as the kubelet does."""
    fd = os.open(os.path.join(NETNS_DIR, name), os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            raise NetworkError(f"setns {name}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


def netns_pids(name):
    proc = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True)
    return [int(p) for p in proc.stdout.split()]


def kill_netns(name):
    """SIGKILLs whatever still runs in a namespace, then deletes it."""
    for _ in range(50):
        pids = netns_pids(name)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    subprocess.run(["ip", "netns", "del", name], capture_output=True)


class Network:
    def __init__(self, run_id, default_route=True):
        self.default_route = default_route
        self.prefix = f"{PREFIX}{run_id}-"
        self.node = self.prefix + "node"
        self.namespaces = []
        self._next_ip = FIRST_POD_IP
        self._veths = 0

    def create(self):
        self._add_netns(self.node)
        ip("-n", self.node, "-batch", "-", stdin=(
            "link set lo up\nlink add br0 type bridge\n"
            f"addr add {NODE_IP}/{SUBNET.prefixlen} dev br0\nlink set br0 up\n"
            "route add unreachable default\n"))
        # Forwarding on, so that a packet for the outside meets the unreachable route (an
        # immediate ICMP error to the pod) instead of being dropped silently (a long timeout);
        # no ICMP rate limit, so every attempt gets its answer.
        proc = subprocess.run(["ip", "netns", "exec", self.node, "sysctl", "-qw", "net.ipv4.ip_forward=1",
                               "net.ipv4.icmp_ratelimit=0"], capture_output=True, text=True)
        if proc.returncode:
            raise NetworkError(f"sysctl net.ipv4.ip_forward in {self.node}: {proc.stderr.strip()}")

    def _add_netns(self, name):
        ip("netns", "add", name)
        self.namespaces.append(name)

    def next_pod_ip(self):
        # Never reused within a run: a recreated pod gets a new address, as on a real node.
        while True:
            addr = self._next_ip
            self._next_ip += 1
            if str(addr).split(".")[-1] not in ("0", "255"):
                return str(addr)

    def add_endpoint(self, short, addr, default_route=None):
        """A namespace with eth0 = `addr` on the bridge; returns its name."""
        if default_route is None:
            default_route = self.default_route
        name = self.prefix + short
        if name in self.namespaces:
            raise NetworkError(f"network namespace {name} exists already")
        self._add_netns(name)
        self._veths += 1
        veth = f"v{self._veths}"
        ip("link", "add", veth, "netns", self.node, "type", "veth", "peer", "name", "eth0", "netns", name)
        ip("-n", self.node, "link", "set", veth, "master", "br0", "up")
        ip("-n", name, "-batch", "-", stdin=(
            f"addr add {addr}/{SUBNET.prefixlen} dev eth0\nlink set eth0 up\nlink set lo up\n"
            + (f"route add default via {NODE_IP}\n" if default_route else "")))
        self.check_isolated(name)
        return name

    def remove_endpoint(self, name):
        kill_netns(name)
        if name in self.namespaces:
            self.namespaces.remove(name)

    def check_isolated(self, name):
        """Asserts that a namespace routes only to the cluster subnet (its default route, if
        any, leads to the node), that the node's default route is `unreachable`, that IPv6
        has link-local routes only, and that the node namespace has no interface but the
        bridge, its ports and lo: nothing reaches the machine's interfaces or beyond."""
        for route in json.loads(ip("-n", name, "-j", "-4", "route", "show", "table", "all") or "[]"):
            if route.get("type") in ("local", "broadcast") or route.get("table") == "local":
                continue
            if route.get("dst") == str(SUBNET) and "gateway" not in route:
                continue
            if route.get("dst") == "default":
                if name == self.node and route.get("type") == "unreachable":
                    continue
                if name != self.node and route.get("gateway") == NODE_IP:
                    continue
            raise NetworkError(f"{name}: unexpected IPv4 route {route}")
        for route in json.loads(ip("-n", name, "-j", "-6", "route", "show") or "[]"):
            if not route.get("dst", "").startswith(("fe80::", "ff00::")):
                raise NetworkError(f"{name}: unexpected IPv6 route {route}")
        for link in json.loads(ip("-n", self.node, "-j", "link")):
            if link["ifname"] != "lo" and link["ifname"] != "br0" and not link["ifname"].startswith("v"):
                raise NetworkError(f"{self.node}: unexpected interface {link['ifname']}")

    def destroy(self):
        for name in reversed(self.namespaces):
            kill_netns(name)
        self.namespaces.clear()


class StateDir:
    """/run/raylaunch-cluster/<run id>, locked for as long as the run is alive."""

    def __init__(self, run_id):
        self.path = os.path.join(STATE_ROOT, run_id)
        with _registry():  # a sweep must not see the directory before it is locked
            os.makedirs(self.path, mode=0o755)
            self._lock = open(os.path.join(self.path, "lock"), "w")
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self._lock.write(f"{os.getpid()}\n")
        self._lock.flush()

    def remove(self, keep=False):
        if not keep:
            shutil.rmtree(self.path, ignore_errors=True)
        self._lock.close()


class _registry:
    """Serialises creating a run's state directory with sweeping stale ones."""

    def __enter__(self):
        os.makedirs(STATE_ROOT, exist_ok=True)
        self._f = open(os.path.join(STATE_ROOT, ".registry.lock"), "w")
        fcntl.flock(self._f, fcntl.LOCK_EX)

    def __exit__(self, *exc):
        self._f.close()


def _alive(run_id):
    lock = os.path.join(STATE_ROOT, run_id, "lock")
    try:
        with open(lock) as f:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
    except FileNotFoundError:
        return False
    except BlockingIOError:
        return True


def sweep_stale(log=lambda msg: None):
    """Removes what runs killed before their teardown left: their namespaces (and whatever
    still runs in them) and state directories. Returns the run ids removed."""
    with _registry():
        return _sweep(log)


def _sweep(log):
    runs = set()
    if os.path.isdir(NETNS_DIR):
        runs |= {n[len(PREFIX):].split("-")[0] for n in os.listdir(NETNS_DIR) if n.startswith(PREFIX)}
    if os.path.isdir(STATE_ROOT):
        runs |= {d for d in os.listdir(STATE_ROOT) if not d.startswith(".")}
    removed = []
    for run_id in sorted(runs):
        if _alive(run_id):
            continue
        names = [n for n in os.listdir(NETNS_DIR) if n.startswith(f"{PREFIX}{run_id}-")] \
            if os.path.isdir(NETNS_DIR) else []
        for name in names:
            kill_netns(name)
        unmount_under(os.path.join(STATE_ROOT, run_id))
        shutil.rmtree(os.path.join(STATE_ROOT, run_id), ignore_errors=True)
        log(f"removed leftovers of run {run_id}: {len(names)} network namespaces")
        removed.append(run_id)
    return removed
