"""FAKE `ray stop`, for tests only (Ray's scripts.py `stop`; ray-gcs-wire.md §5).

Like Ray it finds processes by their 15-character name (raylet, gcs_server) and stops them in
buckets, raylet first and gcs_server last: SIGTERM (SIGKILL with --force), wait
--grace-period/3 seconds per bucket (default 16 s in all), then SIGKILL. One difference: Ray
stops every match on the machine; the fake stops only its own processes under this `ray`'s temp
dir ($RAY_TMPDIR/ray, default /tmp/ray), so tests that run side by side on one machine, each with
its own RAY_TMPDIR, do not stop each other. Inside a pod (own PID namespace) both are the same.
`ray start --block` itself is not among them: it sees its children exit with expected codes and
keeps blocking, as Ray's does.
"""

import os
import signal
import time

from . import node
from .say import say

BUCKETS = (("raylet",), (), ("gcs_server",))  # Ray's RAY_PROCESSES, reduced to what the fake runs


def _processes(names, root):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm", encoding="utf-8") as f:
                comm = f.read().strip()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        except OSError:
            continue
        if comm in names and argv and argv[0].startswith(root + os.sep):
            found.append((int(entry), comm, argv))
    return found


def _gone(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def _signal(pid, sig):
    try:
        os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False


def stop(opts):
    force = bool(opts.get("force"))
    grace = opts.get("grace_period", 16)
    root = node.temp_root()
    total_found = total_stopped = 0
    for names in BUCKETS:
        procs = _processes(names, root)
        sent = []
        for pid, comm, argv in procs:
            how = "SIGKILL" if force else "SIGTERM"
            if _signal(pid, signal.SIGKILL if force else signal.SIGTERM):
                say(f"{'Killed' if force else 'Send termination request to'} `{' '.join(argv)}` (via {how}) "
                    f"[{comm} pid {pid}]")
                sent.append(pid)
        deadline = time.monotonic() + grace / len(BUCKETS)
        while time.monotonic() < deadline and not all(_gone(p) for p in sent):
            time.sleep(0.05)
        alive = [p for p in sent if not _gone(p)]
        for pid in alive:
            _signal(pid, signal.SIGKILL)
        total_found += len(sent)
        total_stopped += len(sent) - len(alive)
    if total_found == 0:
        say("Did not find any active Ray processes.")
    elif total_stopped == total_found:
        say(f"Stopped all {total_stopped} Ray processes.")
    else:
        say(f"Stopped only {total_stopped} out of {total_found} Ray processes within the grace period {grace} "
            "seconds. Remaining processes will be forcefully terminated.", err=True)
    try:
        os.remove(os.path.join(root, "ray_current_cluster"))  # ray._private.utils.reset_ray_address
    except OSError:
        pass
    return 0
