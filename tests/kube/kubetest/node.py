"""The node's view of a pod's processes: what the kubelet's cgroups say, read from /proc (the
tests run on the node, as root). A container's processes are those whose cgroup path names its
container id; a pod's, those whose path names the pod's uid (`pod<uid>` in cgroup v1's
kubepods hierarchy).
"""
import os


def _cgroups():
    """(pid, the contents of /proc/<pid>/cgroup) of every process now."""
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cgroup") as f:
                    yield int(pid), f.read()
            except OSError:
                pass


def processes_of_container(cid):
    """[(host pid, command name)] of the container's processes."""
    found = []
    for pid, cgroup in _cgroups():
        if cid not in cgroup:
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                found.append((pid, f.read().strip()))
        except OSError:
            pass
    return sorted(found)


def container_init(cid):
    """The container's PID 1 as the node sees it: the oldest process of its cgroup whose parent
    is outside it (the shim)."""
    procs = dict(processes_of_container(cid)) if cid else {}
    for pid in sorted(procs):
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if ppid not in procs:
            return pid
    return None


def pod_processes_left(uids):
    """Whether any process of these pods (by uid) still runs on the node."""
    return any(any(u in cgroup or u.replace("-", "_") in cgroup for u in uids) for _, cgroup in _cgroups())
