"""What the scenario tests of issue 12 share: the binary under test as every pod's PID 1
(`raylaunch run` from the overlay's own command line), the fake Ray inside the pods
(tests/fakes/bin/ray on PATH, its GCS and raylet from $FAKE_GCS), and what a machine
without GPUs needs. A scenario reads:

    def test_four_pods_run_the_command_once():
        with raylaunch_cluster("p4de", replicas=4, launch=LAUNCH) as c:
            c.start()
            head = c.pod("training-0")
            c.wait_for(lambda: launched(c) == 1, 60, "the launch command on the head")

Every scenario skips (exit 125, one line) until `raylaunch run` is in the build under test.
"""
import json
import os
import re
import signal
import subprocess

from .cluster import Cluster
from .testing import REPO, Skip, raylaunch_bin, tracked, verbose_sink

FAKES_BIN = os.path.join(REPO, "tests", "fakes", "bin")
# No GPU, EFA device or the overlay's virtualenv on this machine; the rest as the overlay says.
NODE_ENV = {"RAYLAUNCH_GPUS": "0", "RAYLAUNCH_EFA": "0", "RAYLAUNCH_VENV": None}
# Durations that time_scale must not shrink below what real processes take: the fake `ray
# start --block` gives each of its processes 1 s after SIGTERM, and a worker's raylet whose
# head is gone spends it trying to unregister. 20 s scaled by 0.05 would SIGKILL a healthy
# shutdown, so: 5 s to stop Ray, and a pod grace period covering the term grace (3 s at 0.05)
# plus that, with margin, as the manifests' 120 s cover their 60 s + 20 s.
SCALE_FLOORS = {"RAYLAUNCH_RAY_STOP_GRACE": "5s"}
POD_GRACE = 12
# The launch command of most scenarios: one line on the head saying how many nodes were
# ALIVE when it started (asked of the head's GCS, as ray.init() would find it).
LAUNCH = ["sh", "-c", 'echo "LAUNCH on $HOSTNAME:'
          ' $("$FAKE_GCS" nodes --address 127.0.0.1:6379 | grep -c ALIVE) alive"']


def require_run():
    """(raylaunch, fake_gcs), or Skip saying what is missing."""
    binary = raylaunch_bin()
    out = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    if not re.search(r"^\s+run\s", out, re.M):
        raise Skip("`raylaunch run` is not in this build yet")
    if not os.access(os.path.join(FAKES_BIN, "ray"), os.X_OK):
        raise Skip("the fake ray (tests/fakes/bin/ray) is missing")
    fake_gcs = os.environ.get("FAKE_GCS")
    if not fake_gcs or not os.access(fake_gcs, os.X_OK):
        raise Skip("FAKE_GCS is not set to a built fake_gcs")
    return binary, fake_gcs


def fake_ray_env(time_scale):
    """Ray's own health-check timing, scaled like the manifests' (the fake honours them). The
    timeout is not scaled, as probe timeouts are not: it bounds a real process's reply, and
    500 ms would let a loaded 2-core machine declare a live raylet DEAD (a dead one refuses
    the connection at once, so its end is not slower)."""
    return {"RAY_health_check_initial_delay_ms": str(max(1, int(5000 * time_scale))),
            "RAY_health_check_period_ms": str(max(1, int(3000 * time_scale))),
            "RAY_health_check_timeout_ms": "10000"}


def raylaunch_cluster(overlay="p4de", replicas=2, launch=LAUNCH, env=None, time_scale=0.05,
                      image_env=None, **kw):
    """The overlay's pods running the binary under test, with the launch command replaced."""
    binary, fake_gcs = require_run()
    pod_env = dict(NODE_ENV)
    pod_env.update(SCALE_FLOORS)
    pod_env.update(env or {})
    kw.setdefault("grace", POD_GRACE)
    image = {"FAKE_GCS": "/usr/local/bin/fake_gcs", "PYTHONDONTWRITEBYTECODE": "1"}
    image.update(fake_ray_env(time_scale))
    image.update(image_env or {})
    kw.setdefault("log", verbose_sink())
    kw.setdefault("show_events", bool(os.environ.get("RLC_VERBOSE")))
    return tracked(Cluster.from_overlay(overlay, replicas=replicas, raylaunch=binary,
                                        tools={"fake_gcs": fake_gcs}, launch=launch,
                                        env=pod_env, image_env=image, path_prefix=[FAKES_BIN],
                                        time_scale=time_scale, **kw))


def launched(c):
    """How many times the launch command ran, over every pod and restart."""
    return sum(p.log_text().count("LAUNCH on ") for p in c.all_pods)


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


def assert_clean_end(c, run, name, code, message):
    """One container start ended by itself with `code`, its termination message starting with
    `message`: no SIGKILL from the kubelet, no process that outlived Ray, nothing forced."""
    assert run.exit_code == code, f"{name}: exit {run.exit_code}, expected {code}\n{run.text()[-2000:]}"
    assert run.signal is None, f"{name}: killed by signal {run.signal}"
    assert (run.message or "").startswith(message), \
        f"{name}: termination message {run.message!r}, expected {message!r}..."
    forced = [t for t in ("SIGKILL", "outlived ray start") if t in run.text()]
    assert not forced, f"{name}: a forced shutdown ({forced}):\n{run.text()[-2000:]}"
    killed = [e for e in c.events if e.pod == name and "grace period over" in e.message]
    assert not killed, f"{name}: {killed}"


def stop_settled(c, timeout=60):
    """Deletes the workload once no container is starting. A SIGTERM in the first
    millisecond or two of a container (a deletion during a restart: the kubelet sends it as
    soon as the start is reported) reaches raylaunch before it has blocked its signals; PID 1
    with the default action drops it and the pod takes its whole grace period, exit 137.
    Scenarios about something else wait for raylaunch's first log line everywhere first."""
    def settled():
        return all(not p.current or p.current.finished_at is not None
                   or (p.current.started_at is not None and " run: " in p.current.text())
                   for p in c.pods)
    c.wait_for(settled, timeout, "every container past its start")
    c.stop()


def gcs_nodes(c, name="training-0"):
    """The head's GCS node table as `fake_gcs nodes` prints it inside the head pod:
    [(state, node name, node id)]."""
    code, out = c.exec(name, ["fake_gcs", "nodes", "--address", "127.0.0.1:6379"], timeout=15)
    if code != 0:
        raise AssertionError(f"fake_gcs nodes in {name}: exit {code}: {out}")
    return [tuple(line.split()[:3]) for line in out.splitlines() if line.split()[:1] in (["ALIVE"], ["DEAD"])]


def fake_ray_facts(c, name):
    """What the fake `ray start` of the pod's current container wrote about its node."""
    # Read inside the pod: session_latest is an absolute symlink, which the host would
    # resolve against its own root through /proc/PID/root.
    code, out = c.exec(name, ["cat", "/tmp/ray/session_latest/fake_ray.json"], timeout=15)
    if code != 0:
        raise AssertionError(f"{name}: no fake_ray.json: exit {code}: {out}")
    return json.loads(out)


def gcs_ctl(c, *args, name="training-0"):
    """`fake_gcs ctl` on the head's GCS (restart MS, stop, start, ...), from inside the head."""
    control = fake_ray_facts(c, name)["gcs_control"]
    code, out = c.exec(name, ["fake_gcs", "ctl", "--control", f"unix:{control}", *args], timeout=15)
    if code != 0:
        raise AssertionError(f"fake_gcs ctl {' '.join(args)}: exit {code}: {out}")
    return out


def kill_in_pod(c, name, process, sig=signal.SIGKILL):
    """Sends `sig` to the pod's process(es) named `process` (e.g. the raylet: an OOM kill)."""
    pids = [host for host, _, comm in c.processes(name) if comm == process]
    if not pids:
        raise AssertionError(f"no {process} in {name}: {c.processes(name)}")
    for pid in pids:
        os.kill(pid, sig)
    return pids


def known_bug(text):
    """Skips a scenario that a raylaunch bug makes fail (RLC_RUN_KNOWN_BUGS=1 runs it)."""
    if not os.environ.get("RLC_RUN_KNOWN_BUGS"):
        raise Skip(f"known raylaunch bug: {text} (RLC_RUN_KNOWN_BUGS=1 runs it)")
