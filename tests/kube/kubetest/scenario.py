"""What the real-cluster scenarios share: the local overlay (manifests/overlays/local: the
real base on CPU, the test image of scripts/kube image, raylaunch as every pod's PID 1, the
real Ray in the image's virtualenv), and the Ray program as the launch command.

    with raylaunch_run(replicas=3) as k:
        k.start()
        wait_log(k, "training-0", "3/3 nodes alive", 240)

Times, for the real Ray on a loaded 2-core machine, as tests/cluster's scenarios: probe periods
and pod graces scaled x0.2 (the API's whole seconds, at least 1); raylaunch's durations that
real processes need kept as the manifests give them, shortened only where a scenario waits on
them; Ray's own at Ray's defaults except RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S (below).
"""
from . import workload
from .cluster import KubeRun
from .testing import eq, tracked

PROGRAM = "/opt/raylaunch-test/ray_program.py"   # in the test image
SURVIVE = "/opt/raylaunch-test/survive_program.py"  # tests/cluster/survive_program.py
NODES = "/opt/raylaunch-test/ray_nodes.py"
PYTHON = "/opt/venv/ray/bin/python"
OTHER_VENV = "/opt/venv/ray-other"  # another pinned release (tests/ray-releases.txt), in the same image
TIME_SCALE = 0.2
UNSCALED = {"RAYLAUNCH_RAY_STOP_GRACE": "20s", "RAYLAUNCH_TERM_GRACE": "20s", "RAYLAUNCH_JOIN_TIMEOUT": "300s"}
POD_GRACE = 60
# Ray >= 2.5x drains its node when `ray start` gets SIGTERM, bounded by
# RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S (ray/_private/ray_constants.py: 30 s in Ray 2.60), longer
# than the manifests' 20 s RAYLAUNCH_RAY_STOP_GRACE when the head's GCS is already gone.
RAY_ENV = {"RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "5"}


def program(*args):
    """The launch command: the image's Ray program, by the venv's python."""
    return ["python", PROGRAM, *args]


def survive(*args):
    """The launch command of the survival scenarios: tests/cluster/survive_program.py."""
    return ["python", SURVIVE, *args]


# The head's GCS declares a silent raylet DEAD after 3 failed checks 1 s apart (Ray's defaults,
# ray/common/ray_config_def.h: 5 x 3 s after 5 s, each allowed 10 s), so a frozen or killed
# raylet is DEAD within seconds.
FAST_HEALTH = {"RAY_health_check_initial_delay_ms": "1000", "RAY_health_check_period_ms": "1000",
               "RAY_health_check_timeout_ms": "1000", "RAY_health_check_failure_threshold": "3"}


def raylaunch_run(overlay="local", replicas=3, launch=None, env=None, time_scale=TIME_SCALE,
                  grace=POD_GRACE, gated=False, mutate=None, components=(), **kw):
    pod_env = dict(UNSCALED)
    pod_env.update(RAY_ENV)
    pod_env.update(env or {})
    pod_env = {name: value for name, value in pod_env.items() if value is not None}  # None: not set
    ov = workload.overrides(launch=launch if launch is not None else program(), env=pod_env,
                            time_scale=time_scale, grace=grace)
    return tracked(KubeRun.from_overlay(overlay, replicas=replicas, overrides=ov, gated=gated,
                                        mutate=mutate, components=components, **kw))


def launched(k):
    """How many times the Ray program started, over every pod and container start."""
    return sum(p.log_text().count("PROGRAM started on ") for name in k.pod_names() for p in k.pods_named(name))


def wait_log(k, name, text, timeout=60, restart=None):
    return k.wait_for(lambda: text in k.pod(name).log_text(restart), timeout, f"{name} to log {text!r}")


def wait_exit(k, name, restart=0, timeout=60):
    """Container start `restart` of the newest pod `name` has ended; returns that Run."""
    def done():
        runs = k.pod(name).runs
        return len(runs) > restart and runs[restart].ended and runs[restart]
    return k.wait_for(done, timeout, f"{name} (container start {restart}) to exit")


def program_lines(run, prefix):
    return [line.split("PROGRAM ", 1)[1] for line in run.text().splitlines()
            if ("PROGRAM " + prefix) in line]


def hostnames(run):
    found = program_lines(run, "hostnames: ")
    return found[0][len("hostnames: "):].split() if found else None


def assert_program_saw(run, names=("training-0", "training-1", "training-2")):
    """The program's run saw every pod's node ALIVE at ray.init() and ran a pinned task in each."""
    eq(program_lines(run, "ray.init() connected"),
       [f"ray.init() connected: {len(names)} ALIVE nodes: {' '.join(names)}"], "what ray.init() saw")
    eq(hostnames(run), list(names), "hostnames of the pinned tasks")


def nodes(k, name="training-0"):
    """The head's GCS node table as Ray's own client reads it (ray_nodes.py in the pod)."""
    code, out = k.exec(name, [PYTHON, NODES], timeout=90)
    if code != 0:
        raise AssertionError(f"ray_nodes.py in {name}: exit {code}: {out[-2000:]}")
    return [tuple(words) for words in (line.split(maxsplit=4) for line in out.splitlines())
            if len(words) == 5 and words[0] in ("ALIVE", "DEAD")]


def assert_clean_end(run, name, code, message, ray_outlived=False):
    """One container start ended by itself with `code` and a termination message starting with
    `message`; nothing forced (no SIGKILL of Ray's group by raylaunch, no kill by the kubelet
    at the end of the grace: that would be 137). `ray_outlived`: Ray processes outliving `ray
    start` are expected (the agents of a raylet that was SIGKILLed), so raylaunch's `ray stop`
    fallback may run; otherwise that fallback counts as forced too."""
    assert run.exit_code == code, f"{name}: exit {run.exit_code}, expected {code}\n{run.text()[-2000:]}"
    assert (run.message or "").startswith(message), \
        f"{name}: termination message {run.message!r}, expected {message!r}..."
    own = "\n".join(line for line in run.text().splitlines() if "] ray: " not in line)
    forced = [t for t in (": SIGKILL to its group",) + (() if ray_outlived else ("outlived ray start",)) if t in own]
    assert not forced, f"{name}: a forced shutdown ({forced}):\n{run.text()[-2000:]}"


def alive_names(k, name="training-0"):
    """The names of the ALIVE rows in the head's GCS, sorted (a name twice: two ALIVE rows)."""
    return sorted(r[1] for r in nodes(k, name) if r[0] == "ALIVE")


def first_exit(k, name, timeout=90):
    """The first container start of the oldest pod named `name` (a deleted one, when its
    successor exists) has ended; returns that Run."""
    def done():
        runs = k.pods_named(name)[0].runs
        return runs and runs[0].ended and runs[0]
    return k.wait_for(done, timeout, f"{name}'s first container start to exit")


def killed_by_probe(k, name):
    """The kubelet's events that killed `name`'s container for a failed probe."""
    return [e for e in k.events() if e["involvedObject"].get("name") == name and e.get("reason") == "Killing"
            and "probe" in (e.get("message") or "")]
