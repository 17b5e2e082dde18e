"""What the scenario tests share: the binary under test as every pod's PID 1 (`raylaunch
run` from the overlay's own command line) and the real Ray (the current pinned release, through
RAYLAUNCH_VENV as a user sets it: harness/realray.py), each pod with its own /tmp/ray and
/dev/shm. A scenario reads:

    def test_three_pods_run_the_program_once():
        with raylaunch_cluster("p4de", replicas=3) as c:
            c.start()
            head = c.pod("training-0")
            c.wait_for(lambda: launched(c) == 1, 180, "the program on the head")

Every scenario skips (exit 125, one line) until `raylaunch run` is in the build under test, and
fails, saying how to install it, when the current Ray release is not installed.
"""
import os
import re
import signal
import subprocess

from . import realray
from .cluster import Cluster
from .testing import Skip, raylaunch_bin, tracked, verbose_sink

# Real Ray on a loaded 2-core machine: probe periods, pod grace and back-offs scaled x0.2
# (liveness every second, a worker restarted after 2 s instead of 10), and raylaunch's own
# durations that real processes need kept as the manifests give them, not scaled: Ray's
# `ray start` drains its node before it stops (up to 30 s in Ray 2.60, ~1-3 s here), the
# program checkpoints on SIGTERM, and three Ray nodes take 10-60 s to register under load.
TIME_SCALE = 0.2
UNSCALED = {"RAYLAUNCH_RAY_STOP_GRACE": "20s", "RAYLAUNCH_TERM_GRACE": "20s", "RAYLAUNCH_JOIN_TIMEOUT": "300s"}
# The pod's grace period: the term grace plus the Ray stop grace, with margin (the manifests
# give 120 s for their 60 s + 20 s).
POD_GRACE = 60
# Ray >= 2.5x drains its node when `ray start` gets SIGTERM, bounded by
# RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S (ray/_private/ray_constants.py: 30 s in Ray 2.60), and
# the drain RPC waits out that whole bound when the head's GCS is already gone (a Job's workers
# after index 0 finished). 30 s is more than the manifests' RAYLAUNCH_RAY_STOP_GRACE (20 s), so
# raylaunch would SIGKILL Ray's group: the pods here set Ray's own bound to 5 s, as a user whose
# grace is shorter would (a drain the GCS answers takes ~0.5 s here).
RAY_IMAGE_ENV = {"RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "5"}


def program(*args):
    """The launch command: the real Ray program, with the venv's python as a user's image
    has it (RAYLAUNCH_VENV puts its bin first on the command's PATH)."""
    return ["python", realray.PROGRAM, *args]


def require_run():
    """The binary under test, or Skip when it has no `run` yet."""
    binary = raylaunch_bin()
    out = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    if not re.search(r"^\s+run\s", out, re.M):
        raise Skip("`raylaunch run` is not in this build yet")
    return binary


def raylaunch_cluster(overlay="p4de", replicas=3, launch=None, env=None, time_scale=TIME_SCALE,
                      image_env=None, **kw):
    """The overlay's pods running the binary under test on the real Ray, the launch command
    replaced by the Ray program (or `launch`). Returns the Cluster; `c.venv` is Ray's."""
    binary = require_run()
    venv = realray.current_venv()
    pod_env = realray.pod_env(venv)
    pod_env.update(UNSCALED)
    pod_env.update(env or {})
    kw.setdefault("grace", POD_GRACE)
    kw.setdefault("mutate_pod", realray.small_shm)
    # Ray's processes are Python: nothing of theirs may write into the shared checkout.
    image = {"PYTHONDONTWRITEBYTECODE": "1"}
    image.update(RAY_IMAGE_ENV)
    image.update(image_env or {})
    kw.setdefault("log", verbose_sink())
    kw.setdefault("show_events", bool(os.environ.get("RLC_VERBOSE")))
    c = Cluster.from_overlay(overlay, replicas=replicas, raylaunch=binary,
                             launch=launch if launch is not None else program(),
                             env=pod_env, image_env=image, time_scale=time_scale, **kw)
    c.venv = venv
    return tracked(c)


def launched(c):
    """How many times the Ray program started, over every pod and restart."""
    return sum(p.log_text().count("PROGRAM started on ") for p in c.all_pods)


# --- what a user sees of a pod (its log, its end, its Ray), waited for rather than slept on

def wait_log(c, name, text, timeout=60, restart=None):
    """Waits until `text` is in the log of pod `name` (one container start, or any)."""
    c.wait_for(lambda: text in c.pod(name).log_text(restart), timeout, f"{name} to log {text!r}")


def wait_exit(c, name, restart=0, timeout=60):
    """Waits until container start `restart` of pod `name` has ended; returns that run."""
    def done():
        pod = c.pod(name)
        # The kubelet loop sets the termination message last (ContainerRun.finish).
        return len(pod.runs) > restart and pod.runs[restart].message is not None and pod.runs[restart]
    return c.wait_for(done, timeout, f"{name} (container start {restart}) to exit")


def lines(run, needle):
    """The log lines of one container start that contain `needle`."""
    return [line.text for line in run.log if needle in line.text]


def assert_clean_end(c, run, name, code, message, ray_outlived=False):
    """One container start ended by itself with `code`, its termination message starting with
    `message`: no SIGKILL from the kubelet or from raylaunch at the end of a grace, nothing
    forced. `ray_outlived`: Ray processes outliving `ray start` are expected (Ray's agents,
    children of a raylet that was SIGKILLed, are not killed by `ray start`), so raylaunch's
    `ray stop` fallback may run; otherwise that fallback counts as forced too."""
    assert run.exit_code == code, f"{name}: exit {run.exit_code}, expected {code}\n{run.text()[-2000:]}"
    assert run.signal is None, f"{name}: killed by signal {run.signal}"
    assert (run.message or "").startswith(message), \
        f"{name}: termination message {run.message!r}, expected {message!r}..."
    # Only raylaunch's own lines: Ray's relayed output (`ray: ...`) may name signals freely.
    own = "\n".join(line.text for line in run.log if "[" in line.text and "] ray: " not in line.text)
    forced = [t for t in (": SIGKILL to its group",) + (() if ray_outlived else ("outlived ray start",))
              if t in own]
    assert not forced, f"{name}: a forced shutdown ({forced}):\n{run.text()[-2000:]}"
    killed = [e for e in c.events if e.pod == name and "grace period over" in e.message]
    assert not killed, f"{name}: {killed}"


def kill_in_pod(c, name, process, sig=signal.SIGKILL):
    """Sends `sig` to the pod's process(es) named `process` (e.g. the raylet: an OOM kill)."""
    pids = [host for host, _, comm in c.processes(name) if comm == process]
    if not pids:
        raise AssertionError(f"no {process} in {name}: {c.processes(name)}")
    for pid in pids:
        os.kill(pid, sig)
    return pids
