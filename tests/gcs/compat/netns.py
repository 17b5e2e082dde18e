"""The private namespaces real-Ray tests run in, and the processes in them.

`enter_namespaces()` re-executes the test as PID 1 of new PID, mount and network namespaces, so
every Ray process it starts dies with it (nothing reaches the host's PID namespace, where `ray stop`
or a stray raylet would hit other tests' clusters), with loopback only and a /tmp, /run and /sys of
its own. Node addresses are /32s on loopback; `remove_address` makes one vanish (packets to it are
dropped unanswered, as for a pod that is gone)."""
import os
import shutil
import signal
import subprocess
import sys

from raytest import Skip, wait_for

SUBNET = "10.77.0"
_MARK = "RAYLAUNCH_RAY_NAMESPACES"
HOST_TMP_ENTRIES = "RAYLAUNCH_TEST_HOST_TMP"  # the host's /tmp entries bound back, "/"-separated


def enter_namespaces():
    """Re-executes this program as PID 1 of private PID, mount and network namespaces (once)."""
    if os.environ.get(_MARK) == "1" and os.getpid() == 1:
        _set_up_inside()
        return
    if os.geteuid() != 0:
        raise Skip("needs root (namespaces, mounts, addresses)")
    for tool in ("unshare", "ip", "mount"):
        if shutil.which(tool) is None:
            raise Skip(f"{tool} is not installed")
    env = dict(os.environ, **{_MARK: "1"})
    sys.stdout.flush()
    sys.stderr.flush()
    # --kill-child: if this process is killed (ctest's timeout), the namespace's PID 1 is too, and
    # with it every process of every node.
    os.execvpe("unshare", ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--net", "--mount",
                           "--propagation", "private", sys.executable, *sys.argv], env)


def _set_up_inside():
    # PID 1 ignores SIGTERM unless it handles it: end the test (and so the namespace) on one.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sh("ip", "link", "set", "lo", "up")
    _private_tmp()
    sh("mount", "-t", "sysfs", "sysfs", "/sys")  # this network namespace's devices
    # Addresses of the nodes live on lo (/32 each). The rest of the subnet goes to a veth whose
    # peer answers nothing: a packet to an address no node holds any more is dropped without an
    # answer, as for a pod that is gone (connect() hangs; it is not refused).
    sh("ip", "link", "add", "rlv0", "type", "veth", "peer", "name", "rlv1")
    sh("ip", "link", "set", "rlv0", "up")
    sh("ip", "link", "set", "rlv1", "up")
    sh("ip", "route", "add", f"{SUBNET}.0/24", "dev", "rlv0")


def _kept_under_tmp():
    """The top-level entries of the host's /tmp this test still needs once /tmp is its own: a
    checkout cloned with `mktemp -d`, its build tree, a virtualenv or a path the test was given."""
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [here, os.getcwd(), sys.executable, *sys.argv, *sys.path, *os.environ.values()]
    kept = set()
    for p in paths:
        for part in str(p).split(os.pathsep):
            if part.startswith("/tmp/") and len(part) > len("/tmp/"):
                kept.add(part[len("/tmp/"):].split("/", 1)[0])
    return sorted(k for k in kept if k not in ("", ".", ".."))


def _private_tmp():
    """A /tmp and /run of their own (Ray's session directories and sockets must not meet another
    test's), with the host's /tmp entries the test needs bound back in: mounting over /tmp hid a
    checkout under /tmp, and every real-Ray test of it failed at once with FileNotFoundError.
    The host's /tmp is reached through a bind on the private /run (a /proc/<pid>/fd path would
    not do: mount(8) resolves it to "/tmp/…", which by then is the new tmpfs)."""
    kept = [k for k in _kept_under_tmp() if os.path.exists(os.path.join("/tmp", k))]
    sh("mount", "-t", "tmpfs", "tmpfs", "/run")
    host_tmp = "/run/raylaunch-host-tmp"
    os.makedirs(host_tmp)
    sh("mount", "--bind", "/tmp", host_tmp)
    sh("mount", "-t", "tmpfs", "tmpfs", "/tmp")
    for name in kept:
        source, target = os.path.join(host_tmp, name), os.path.join("/tmp", name)
        if os.path.isdir(source):
            os.makedirs(target, exist_ok=True)
        else:
            open(target, "a").close()
        sh("mount", "--bind", source, target)
    sh("umount", "--lazy", host_tmp)
    os.rmdir(host_tmp)
    # Each node's /tmp is its own too (in-pod): it binds these back the same way.
    os.environ[HOST_TMP_ENTRIES] = "/".join(kept)


def sh(*argv, check=True):
    r = subprocess.run(argv, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def _mac(dev):
    with open(f"/sys/class/net/{dev}/address") as f:
        return f.read().strip()


def add_address(ip):
    sh("ip", "neigh", "del", ip, "dev", "rlv0", check=False)
    sh("ip", "addr", "replace", f"{ip}/32", "dev", "lo")


def remove_address(ip):
    """`ip` stops being anyone's: packets to it vanish (a permanent neighbour entry, so not even ARP
    fails fast)."""
    sh("ip", "addr", "del", f"{ip}/32", "dev", "lo", check=False)
    sh("ip", "neigh", "replace", ip, "lladdr", _mac("rlv1"), "dev", "rlv0", "nud", "permanent")


# --- processes ------------------------------------------------------------------------------


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def _pidns(unshare_pid):
    """The PID namespace of unshare's child, once it is in its own (not unshare's)."""
    try:
        child = children(unshare_pid)
        ns = os.readlink(f"/proc/{child[0]}/ns/pid") if child else None
        return ns if ns and ns != os.readlink(f"/proc/{unshare_pid}/ns/pid") else None
    except OSError:
        return None


def _comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


def _gone(pid):
    """Exited: no such process, or a zombie (this test is the namespace's PID 1 and leaves the
    zombies of orphans alone: reaping them would race subprocess's own waits)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _wait_gone(pids, timeout=60):
    wait_for(lambda: all(_gone(p) for p in pids), timeout, "a node's processes to exit")
