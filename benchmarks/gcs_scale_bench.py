#!/usr/bin/python3
"""What raylaunch's asks cost a REAL `gcs_server` with 4 to 4,096 nodes, beside KubeRay's probe
(issue 26, item 14). Run by benchmarks/gcs_scale; writes benchmarks/results/gcs-scale.md.
Not a test: nothing fails on a slow figure.

For each pinned release (RELEASES, default 2.40.0 and 2.60.0) and each size (NODES, default 4 64
512 4096), in private namespaces (tests/gcs/compat/netns.py: loopback only, every process dies
with this one):
1. the release's own gcs_server binary, started as `ray start --head` starts it (flags of
   services.start_gcs_server), alone: no raylet, dashboard or agent of its own;
2. gcs_scale_nodes registers N nodes and answers the GCS's health checks and resource-load
   pulls for all of them, so the rows stay ALIVE and the GCS does its own per-node work;
3. for each ask, gcs_scale_client asks as ONE pod does, at a duty cycle of DUTY (calls back to
   back, pausing as long as each call took): the GCS's CPU (/proc/PID/stat, every thread) in
   WINDOWS windows (LARGE_WINDOWS from 1,024 nodes) of WINDOW_S seconds, each between two windows
   at rest, whose rate is taken off (scale_windows.hpp); then, through a relay that counts what
   the GCS sends, the bytes per call (a run of many calls less a run of few, so connection set-up
   cancels). The measurements go to OUT.json beside the report.
Each ask's cost per call times its cadence in a pod is the GCS's CPU per second for one pod;
times the pods that ask, for the whole cluster.

  gcs_scale_bench.py CLIENT NODE_LOAD RAYLAUNCH OUT.md
"""
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "gcs", "compat"))
from bytecounter import ByteCounter  # noqa: E402
from netns import enter_namespaces  # noqa: E402
from raytest import venv, wait_for  # noqa: E402

GCS_PORT = 21379   # in this namespace only: nothing outside can clash
NODE_PORT = 21500  # every node's raylet port (each node has its own address)


def env_list(name, default):
    return os.environ.get(name, default).split()


RELEASES = env_list("RELEASES", "2.40.0 2.60.0")
NODES = [int(n) for n in env_list("NODES", "4 64 512 4096")]
WINDOW_S = float(os.environ.get("WINDOW_S", "3"))
WINDOWS = int(os.environ.get("WINDOWS", "5"))
# From 1,024 nodes the GCS's own work at rest (~0.65 of a core at 4,096, in bursts) is large beside
# a cheap ask's: more windows, for a median that noise moves less.
LARGE_WINDOWS = int(os.environ.get("LARGE_WINDOWS", "9"))
DUTY = float(os.environ.get("DUTY", "0.5"))

# What each ask is, how often one pod makes it, and which pods do (manifests/base/statefulset.yaml:
# probes every 5 s; docs/run.md: /readyz and /livez answer from state at most 1 s old, the head
# watch looks every 2 s (RAYLAUNCH_HEAD_WATCH), only the head runs the barrier; KubeRay:
# anchors.md §A3, liveness and readiness probes every 5 s on every pod, each one agent call).
# The barrier's cadence is measured: it runs its own pacing (275 ms, longer for slow replies).
ASKS = [
    # mode, label, RPCs per call, calls per second per pod (None: measured), who asks, calls for bytes
    ("barrier", "raylaunch join barrier (head, until all joined)", 1, None, "head", (1, 41)),
    ("readiness", "raylaunch worker readiness (/readyz)", 1, 1 / 5, "workers", (2, 22)),
    ("watch", "raylaunch head watch (a worker)", 2, 1 / 2, "workers", (2, 22)),
    ("head-probe", "raylaunch head probes (/livez, /readyz)", 1, 2 / 5, "head", (2, 22)),
    ("kuberay-worker", "KubeRay probes of a worker", 1, 2 / 5, "workers", (2, 22)),
    ("kuberay-head", "KubeRay probes of the head", 2, 2 / 5, "head", (2, 22)),
]
ONLY = env_list("ASKS", " ".join(a[0] for a in ASKS))  # a subset, for a quick look (the report needs all)


def sh(*argv, timeout=600):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:3])}: exit {r.returncode}: {(r.stderr or r.stdout).strip()[-600:]}")
    return r.stdout


def cpu_ms(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def stop(proc, grace=10):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Gcs:
    """The release's real gcs_server on 127.0.0.1:GCS_PORT, started with the flags `ray start
    --head` gives it (python/ray/_private/services.py start_gcs_server of 2.40.0 and 2.60.0)."""

    def __init__(self, release, work):
        self.binary = os.path.join(venv(release), "lib", "python3.11", "site-packages", "ray", "core", "src", "ray",
                                   "gcs", "gcs_server")
        self.dir = os.path.join(work, f"gcs-{release}")
        os.makedirs(os.path.join(self.dir, "logs"), exist_ok=True)
        flags = subprocess.run([self.binary, "--help"], capture_output=True, text=True, timeout=30).stdout
        argv = [self.binary, f"--log_dir={self.dir}/logs", "--config_list=e30=",  # base64 of "{}": Ray's defaults
                f"--gcs_server_port={GCS_PORT}", "--metrics-agent-port=0", "--node-ip-address=127.0.0.1",
                "--session-name=session_gcs_scale_bench", "--ray-commit=bench"]
        if "-session_dir" in flags:  # 2.60: its session directory and the head's node id
            argv += [f"--session-dir={self.dir}", "--node-id=" + os.urandom(28).hex()]
        self.log = os.path.join(self.dir, "gcs_server.out")
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.pid = self.proc.pid
        self.address = f"127.0.0.1:{GCS_PORT}"

    def warnings(self):
        """Warning and error lines of its log (Ray's `W`/`E` levels) by source location: how many,
        and the first one's message."""
        seen = {}
        with open(self.log, errors="replace") as f:
            for line in f:
                parts = line.split("] ", 1)
                if len(parts) == 2 and (" W " in parts[0] or " E " in parts[0]):
                    where, _, message = parts[1].removeprefix("(gcs_server) ").partition(": ")
                    count, first = seen.get(where, (0, message.strip()[:200]))
                    seen[where] = (count + 1, first)
        return seen


class NodeLoad:
    """gcs_scale_nodes: N registered nodes whose health checks and resource-load pulls it answers."""

    def __init__(self, binary, gcs, n, work):
        self.state_file = os.path.join(work, f"nodes-{n}.state")
        self.nodes_file = os.path.join(work, f"nodes-{n}.list")
        self.err = os.path.join(work, f"nodes-{n}.err")
        with open(self.err, "w") as err:
            self.proc = subprocess.Popen([binary, gcs.address, str(n), str(NODE_PORT), self.state_file,
                                          self.nodes_file], stdout=err, stderr=subprocess.STDOUT)
        self.n = n

    def state(self):
        try:
            return {k: int(v) for k, v in (w.split("=") for w in open(self.state_file).read().split())}
        except (OSError, ValueError):
            return {}

    def ready(self):
        if self.proc.poll() is not None:
            raise RuntimeError(f"gcs_scale_nodes exited {self.proc.returncode}: {open(self.err).read()[-600:]}")
        s = self.state()
        return os.path.exists(self.nodes_file) and s.get("checked_nodes") == self.n

    def node(self, name):
        for line in open(self.nodes_file):
            words = line.split()
            if words[0] == name:
                return words
        raise KeyError(name)


def client(binary, mode, address, *args):
    out = sh(binary, mode, address, *args)
    return json.loads([line for line in out.splitlines() if line.startswith("{")][-1])


def answers(binary, gcs):
    if gcs.proc.poll() is not None:
        raise RuntimeError(f"gcs_server exited {gcs.proc.returncode}: {open(gcs.log, errors='replace').read()[-600:]}")
    try:
        return client(binary, "count", gcs.address)
    except RuntimeError:
        return None


def median(xs):
    return statistics.median(xs) if xs else float("nan")


_relay = None


def relay():
    """One relay to the GCS's port for the whole run, counting what the GCS sends."""
    global _relay
    if _relay is None:
        _relay = ByteCounter("127.0.0.1", GCS_PORT)
    return _relay


def windows_for(n):
    return LARGE_WINDOWS if n >= 1024 else WINDOWS


def measure(binary, gcs, load, n, mode, rpcs, cadence, calls_for_bytes):
    """One ask against one GCS: its cost per call (CPU above the GCS's idle rate) and bytes."""
    name, node_id, raylet = load.node("training-1" if n > 1 else "training-0")
    who = ["--node", name, "--node-id", node_id, "--raylet", raylet, "--expect", str(n + 1)]
    s0, t0 = load.state(), time.monotonic()
    r = client(binary, mode, gcs.address, "--gcs-pid", str(gcs.pid), "--window-s", str(WINDOW_S), "--windows",
               str(windows_for(n)), "--duty", str(DUTY), *who)
    s1, t1 = load.state(), time.monotonic()
    w = r["windows"]  # rest, ask, rest, …, ask, rest
    rest = [x["gcs_cpu_ms"] / x["wall_ms"] for x in w if x["rest"]]
    per_call = []
    for i in range(1, len(w) - 1, 2):
        at_rest = (w[i - 1]["gcs_cpu_ms"] + w[i + 1]["gcs_cpu_ms"]) / (w[i - 1]["wall_ms"] + w[i + 1]["wall_ms"])
        if w[i]["calls"]:
            per_call.append((w[i]["gcs_cpu_ms"] - at_rest * w[i]["wall_ms"]) / w[i]["calls"])
    asked = [x for x in w if not x["rest"]]
    if cadence is None:  # the barrier's own pacing, in the time its clock saw
        cadence = median([x["calls"] / (x["sim_ms"] / 1000) for x in asked if x["sim_ms"] > 0])
    via = f"127.0.0.1:{relay().port}"
    sent = []
    for calls in calls_for_bytes:
        relay().reset()
        client(binary, mode, via, "--calls", str(calls), *who)
        sent.append(relay().total())
    bytes_per_call = (sent[1] - sent[0]) / (calls_for_bytes[1] - calls_for_bytes[0])
    return {"mode": mode, "idle_ms_per_s": median(rest) * 1000, "cpu_ms_per_call": median(per_call),
            "cpu_ms_per_call_range": (min(per_call), max(per_call)) if per_call else (0, 0),
            "busy_ms_per_s": median([x["gcs_cpu_ms"] / x["wall_ms"] * 1000 for x in asked]),
            "calls": r["calls"], "errors": r["errors"], "rpcs_per_call": rpcs, "cadence": cadence,
            "bytes_per_call": bytes_per_call, "light_polls": r.get("light_polls"), "polls": r.get("polls"),
            "checks_per_s": (s1.get("checks", 0) - s0.get("checks", 0)) / (t1 - t0),
            "pulls_per_s": (s1.get("load_pulls", 0) - s0.get("load_pulls", 0)) / (t1 - t0),
            "asked_by": r.get("asked_by"), "last": r.get("last", "")}


def one_size(release, n, client_bin, load_bin, work):
    """Everything for one release at one size; the processes are stopped whatever happens."""
    result = {"release": release, "nodes": n, "asks": [], "error": None}
    gcs = Gcs(release, work)
    load = None
    try:
        wait_for(lambda: answers(client_bin, gcs), 60, "the GCS to answer", interval=0.5)
        t0 = time.monotonic()
        load = NodeLoad(load_bin, gcs, n, work)
        # Registered, and each node health-checked once (5 s after it registered, then every 3 s).
        wait_for(load.ready, 120 + n / 20, f"{n} nodes registered and health-checked", interval=0.5)
        result["ready_s"] = time.monotonic() - t0
        time.sleep(5)  # the burst of registration over
        result["alive_before"] = client(client_bin, "count", gcs.address)["alive"]
        for mode, _, rpcs, cadence, _, calls in (a for a in ASKS if a[0] in ONLY):
            print(f"  {release} {n} nodes: {mode}", flush=True)
            result["asks"].append(measure(client_bin, gcs, load, n, mode, rpcs, cadence, calls))
        result["alive_after"] = client(client_bin, "count", gcs.address)["alive"]
        result["gcs_rss_mb"] = rss_mb(gcs.pid)
        result["state"] = load.state()
    except Exception as e:  # what this release could not do at this size: reported, the run goes on
        result["error"] = f"{type(e).__name__}: {e}"
        if load is not None:
            result["state"] = load.state()
    finally:
        if load is not None:
            stop(load.proc)
        result["gcs_cpu_total_ms"] = cpu_ms(gcs.pid) if gcs.proc.poll() is None else None
        result["gcs_exit"] = gcs.proc.poll()
        stop(gcs.proc)
        result["warnings"] = gcs.warnings()
    return result


def main():
    client_bin, load_bin, rl, out_md = sys.argv[1:5]
    out_md = os.path.abspath(out_md)
    if out_md.startswith(("/tmp/", "/run/")):
        raise SystemExit(f"{out_md}: /tmp and /run are private to the benchmark's namespaces; write elsewhere")
    enter_namespaces()  # re-executes this script as PID 1 of private namespaces, once
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the GCS holds a connection per node
    work = "/run/gcs-scale-bench"
    os.makedirs(work, exist_ok=True)
    started = time.time()
    load_start = open("/proc/loadavg").read().split()[:3]
    results = []
    for release in RELEASES:
        for n in NODES:
            print(f"{release}: {n} nodes", flush=True)
            results.append(one_size(release, n, client_bin, load_bin, os.path.join(work, f"{release}-{n}")))
            if results[-1]["error"]:
                print(f"  {results[-1]['error']}", flush=True)
    meta = {"started": started, "took_s": time.time() - started, "load_start": load_start,
            "load_end": open("/proc/loadavg").read().split()[:3],
            "raylaunch": subprocess.run([rl, "version"], capture_output=True, text=True).stdout.strip(),
            "commit": subprocess.run(["git", "-C", REPO, "describe", "--always", "--dirty", "--abbrev=12"],
                                     capture_output=True, text=True).stdout.strip()}
    params = {"asks": ASKS, "window_s": WINDOW_S, "windows": WINDOWS, "large_windows": LARGE_WINDOWS, "duty": DUTY,
              "nodes": NODES, "releases": RELEASES}
    # The measurements beside the report, so that it can be rewritten (gcs_scale_report.py
    # OUT.json) and a later run compared with this one.
    with open(os.path.splitext(out_md)[0] + ".json", "w") as f:
        json.dump({"meta": meta, "params": params, "results": results}, f, indent=1)
    from gcs_scale_report import write
    write(out_md, results, meta, params)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
