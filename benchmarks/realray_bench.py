#!/usr/bin/python3
"""raylaunch beside its real peers on a real Ray node (issue 17 item 6), side by side in one run.
Not a test: nothing fails on a slow figure. Writes the results file given.

  realray_bench.py RAYLAUNCH BENCH_RUSAGE DEFAULT_VENV OUT.md      (as root; benchmarks/realray)

Every Ray node runs in the cluster harness's pods (tests/cluster: its own PID, mount and network
namespaces, its own /tmp/ray and /dev/shm), `raylaunch run` as PID 1 of the p4de overlay's pods
with RAYLAUNCH_VENV = a virtualenv of ray[default] (the dashboard and its agent: what KubeRay's
probes talk to), the real Ray program (tests/cluster/ray_program.py) as the launch command.

1. Exec probes, timed inside the pod by bench_rusage (fork, execv, wait4: wall, CPU of the
   process and every child it waited for, peak RSS): `raylaunch probe liveness|readiness`, beside
   `ray health-check` (what KubeRay's `wait-gcs-ready` init container runs every 5 s) and KubeRay's
   exec probe command (`bash -c "wget ... /api/local_raylet_healthz | grep success"`, and on the
   head `&& wget ... :8265/api/gcs_healthz | grep success`; kuberay utils/constant.go, Ray < 2.53).
2. HTTP probes from the node, as the kubelet sends them (a new TCP connection each): raylaunch's
   /livez and /readyz beside the dashboard agent's /api/healthz (KubeRay's HTTP probe for Ray
   >= 2.53) and /api/local_raylet_healthz; the pod's CPU per request (all its processes: the
   answer may involve the raylet or the GCS), above its idle rate over the same wall time.
3. Memory: raylaunch (PID 1) beside the Ray node's own processes in the same pod (RSS and PSS).
4. The last worker registering (the GCS's "Registering new node" log line) -> the launch
   command's first instruction (the program's first line, before `import ray`), on a 2-pod
   cluster of the current minimal release, the worker released at a random point of the head's
   barrier; several clusters.
"""
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from datetime import datetime

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "cluster"))
from harness import realray  # noqa: E402
from harness.scenario import program, raylaunch_cluster, wait_log  # noqa: E402

RL, RUSAGE, DEFAULT_VENV, OUT = sys.argv[1:5]
os.environ["RAYLAUNCH_BIN"] = RL
EXEC_RUNS, EXEC_WARMUP = int(os.environ.get("EXEC_RUNS", "20")), 3
HTTP_RUNS = int(os.environ.get("HTTP_RUNS", "200"))
JOIN_RUNS = int(os.environ.get("JOIN_RUNS", "5"))
HEAD_FQDN = "training-0.training.default.svc.cluster.local"
TICK = os.sysconf("SC_CLK_TCK")

KUBERAY_WORKER_PROBE = "wget --tries 1 -T 2 -q -O- http://localhost:52365/api/local_raylet_healthz | grep success"
KUBERAY_HEAD_PROBE = (KUBERAY_WORKER_PROBE +
                      " && wget --tries 1 -T 10 -q -O- http://localhost:8265/api/gcs_healthz | grep success")


def log(text):
    print(f"[bench] {text}", flush=True)


def rusage(c, pod, argv):
    """bench_rusage's medians for argv run EXEC_RUNS times inside the pod."""
    code, out = c.exec(pod, ["/usr/local/bin/bench_rusage", str(EXEC_RUNS), str(EXEC_WARMUP), *argv], timeout=600)
    if code != 0:
        raise RuntimeError(f"bench_rusage in {pod}: exit {code}: {out[-1500:]}")
    r = json.loads(out.strip().splitlines()[-1])
    log(f"{pod}: {' '.join(argv)[:90]}: {r}")
    return r


def pod_cpu_ticks(c, pod):
    """utime + stime of every process in the pod now (from the host's /proc)."""
    total = 0
    for host, _, _ in c.processes(pod):
        try:
            stat = open(f"/proc/{host}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(stat[11]) + int(stat[12])
    return total


def http_series(c, pod, port, path):
    """HTTP_RUNS GETs from the node: (median ms, p90 ms, statuses, the pod's CPU ms per request
    above its idle rate, measured over the same wall time just before)."""
    times, codes = [], {}
    start, before = time.monotonic(), pod_cpu_ticks(c, pod)
    for _ in range(HTTP_RUNS):
        t = time.perf_counter()
        ok, _, detail = c.http_get(pod, port, path, timeout=5)
        times.append((time.perf_counter() - t) * 1000)
        code = detail.split(" ", 1)[0]
        codes[code] = codes.get(code, 0) + 1
    busy, took = pod_cpu_ticks(c, pod) - before, time.monotonic() - start
    idle_before = pod_cpu_ticks(c, pod)
    time.sleep(took)
    idle = pod_cpu_ticks(c, pod) - idle_before
    cpu_ms = max(0, busy - idle) * 1000 / TICK / HTTP_RUNS
    times.sort()
    result = (statistics.median(times), times[int(len(times) * 0.9)], codes, cpu_ms)
    log(f"{pod} GET :{port}{path}: median {result[0]:.2f} ms, p90 {result[1]:.2f} ms, {codes}, "
        f"the pod's CPU {cpu_ms:.3f} ms/request")
    return result


def memory(c, pod):
    """(raylaunch RSS MB, PSS MB; the Ray node's processes RSS MB, PSS MB, how many, their
    names) in the pod: everything but PID 1 and the launch command (the user's driver)."""
    def rss_pss(pid):
        rss = pss = 0
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
        return rss / 1024, pss / 1024
    command = [int(line.text.split("(pid ")[1].split(")")[0]) for line in c.pod(pod).current.log
               if "started the command (pid " in line.text]
    procs = c.processes(pod)
    mine = rss_pss(procs[0][0])  # PID 1
    node = [(host, comm) for host, pid, comm in procs[1:] if pid not in command and comm != "bench_rusage"]
    sizes = [rss_pss(host) for host, _ in node]
    return mine + (sum(r for r, _ in sizes), sum(p for _, p in sizes), len(node), [comm for _, comm in node])


def probes_and_memory():
    tools = {"bench_rusage": RUSAGE}
    env = {"RAYLAUNCH_VENV": DEFAULT_VENV}
    with raylaunch_cluster("p4de", replicas=2, launch=program("--until-sigterm"), env=env, tools=tools) as c:
        c.start()
        wait_log(c, "training-0", "PROGRAM running until SIGTERM", 300)
        for pod in ("training-0", "training-1"):  # the agents serve HTTP a moment after Ray starts
            c.wait_for(lambda: c.exec(pod, ["bash", "-c", KUBERAY_WORKER_PROBE], timeout=10)[0] == 0, 120,
                       f"{pod}'s dashboard agent to answer")
        c.wait_for(lambda: c.exec("training-0", ["bash", "-c", KUBERAY_HEAD_PROBE], timeout=20)[0] == 0, 120,
                   "the dashboard to answer")
        time.sleep(5)  # let the start-up settle
        results = {"exec": {}, "http": {}, "memory": {}}
        ray = os.path.join(DEFAULT_VENV, "bin", "ray")
        for pod, role, gcs, kuberay in (("training-0", "head", "127.0.0.1:6379", KUBERAY_HEAD_PROBE),
                                        ("training-1", "worker", f"{HEAD_FQDN}:6379", KUBERAY_WORKER_PROBE)):
            e = results["exec"][role] = {}
            e["raylaunch probe liveness"] = rusage(c, pod, ["/usr/local/bin/raylaunch", "probe", "liveness"])
            e["raylaunch probe readiness"] = rusage(c, pod, ["/usr/local/bin/raylaunch", "probe", "readiness"])
            e["ray health-check"] = rusage(c, pod, [ray, "health-check", "--address", gcs])
            e["KubeRay exec probe"] = rusage(c, pod, ["/bin/bash", "-c", kuberay])
            h = results["http"][role] = {}
            h["/livez"] = http_series(c, pod, 8081, "/livez")
            h["/readyz"] = http_series(c, pod, 8081, "/readyz")
            h["agent /api/healthz"] = http_series(c, pod, 52365, "/api/healthz")
            h["agent /api/local_raylet_healthz"] = http_series(c, pod, 52365, "/api/local_raylet_healthz")
            results["memory"][role] = memory(c, pod)
            log(f"{pod} memory: {results['memory'][role]}")
        c.stop()
    return results


def gcs_registered_ms(c, name):
    """When the head's GCS logged `Registering new node ... node_name=NAME` (epoch ms)."""
    code, out = c.exec("training-0", ["grep", "-h", f"Registering new node.*node_name={name} ",
                                      "/tmp/ray/session_latest/logs/gcs_server.out"], timeout=30)
    if code != 0:
        raise RuntimeError(f"no registration of {name} in the GCS log: {out}")
    stamp = " ".join(out.splitlines()[-1].lstrip("[").split()[:2])  # "[2026-12-01 15:46:07,243 I 12 28] ..."
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp() * 1000


def join_to_command():
    lat = []
    for i in range(JOIN_RUNS):
        with raylaunch_cluster("p4de", replicas=2) as c:
            c.start(hold=["training-1"])
            wait_log(c, "training-0", "1/2 nodes alive; missing: training-1", 300)
            time.sleep(random.uniform(0, 0.3))  # anywhere in the barrier's poll interval
            c.release("training-1")
            wait_log(c, "training-0", "PROGRAM started on", 300)
            first = next(line.text for line in c.pod("training-0").current.log if line.text.startswith("PROGRAM started"))
            first_ms = float(first.split(" at ")[1].split()[0]) * 1000
            registered = gcs_registered_ms(c, "training-1")
            lat.append(first_ms - registered)
            log(f"join run {i}: training-1 registered -> first instruction {lat[-1]:.0f} ms")
            c.stop()
    return lat


def main():
    started = time.time()
    version = realray.release(DEFAULT_VENV).split("-")[0]
    probes = probes_and_memory()
    lat = join_to_command()
    minimal = realray.release(realray.current_venv())
    write(probes, lat, version, minimal, time.time() - started)


def times(a, b):
    """a / b as `1.3×` or `214×`."""
    if b <= 0:
        return "—"
    r = a / b
    return f"{r:.1f}×" if r < 10 else f"{r:.0f}×"


def row_exec(name, r, base=None):
    wall, cpu = r["wall_ms_median"], r["cpu_ms_median"]
    ratio = times(wall, base["wall_ms_median"]) if base else "1×"
    cpu_ratio = times(cpu, base["cpu_ms_median"]) if base else "1×"
    failed = f" ({r['failures']} of {r['runs']} failed)" if r["failures"] else ""
    return f"| {name}{failed} | {wall:.1f} ms | {cpu:.1f} ms | {r['rss_mb_median']:.1f} MB | {ratio} | {cpu_ratio} |"


def write(p, lat, version, minimal, took):
    load = open("/proc/loadavg").read().split()[:3]
    rl_version = subprocess.run([RL, "version"], capture_output=True, text=True).stdout.strip()
    lines = [
        "# raylaunch beside its real peers on a real Ray node (benchmarks/realray_bench.py)",
        "",
        f"One run, {datetime.now().strftime('%Y-%m-%d %H:%M')}, {rl_version}, {os.cpu_count()} cores ({platform.machine()}), "
        f"load average at the end {' '.join(load)} (other work shared the machine), {took / 60:.0f} min. "
        f"Ray {version} (`ray[default]`: dashboard and dashboard agent) in the cluster harness's pods (own PID, "
        "mount, network namespaces, own /tmp/ray and /dev/shm), `raylaunch run` as PID 1 of the p4de overlay's pods "
        "(2 pods, `--num-cpus=1`, a 128Mi object store), the real Ray program running. Medians; each table from "
        "this one run.",
        "",
        f"## Exec probes, timed inside the pod ({EXEC_RUNS} runs after {EXEC_WARMUP}; bench_rusage: fork, execv, wait4)",
        "",
        "CPU is the probe process's and every child it waited for (bash's wget and grep); RSS the largest of them.",
        "",
    ]
    for role in ("head", "worker"):
        e = p["exec"][role]
        base = e["raylaunch probe liveness"]
        lines += [f"**{role}** | wall | CPU | peak RSS | wall vs `raylaunch probe liveness` | CPU vs |",
                  "|---|---|---|---|---|---|"]
        lines += [row_exec(f"`{name}`" if name.startswith(("raylaunch", "ray ")) else name, r,
                           None if name == "raylaunch probe liveness" else base) for name, r in e.items()]
        lines.append("")
    lines += [f"## HTTP probes from the node ({HTTP_RUNS} GETs each, a new TCP connection per GET, as the kubelet)",
              "", "| pod | endpoint | median | p90 | answers | the pod's CPU per request (above idle) |",
              "|---|---|---|---|---|---|"]
    for role in ("head", "worker"):
        for name, (med, p90, codes, cpu) in p["http"][role].items():
            who = "raylaunch :8081" if name.startswith("/") else "dashboard agent :52365"
            lines.append(f"| {role} | {who} `{name.replace('agent ', '')}` | {med:.2f} ms | {p90:.2f} ms | "
                         f"{', '.join(f'{k}×{v}' for k, v in codes.items())} | {cpu:.3f} ms |")
    lines += ["", "## Memory in the same pod (from /proc/PID/smaps_rollup)", "",
              "| pod | raylaunch (PID 1) RSS | PSS | the Ray node's processes RSS | PSS | processes (without the program's driver) |",
              "|---|---|---|---|---|---|"]
    for role in ("head", "worker"):
        rss, pss, ray_rss, ray_pss, n, comms = p["memory"][role]
        lines.append(f"| {role} | {rss:.1f} MB | {pss:.1f} MB | {ray_rss:.0f} MB | {ray_pss:.0f} MB | "
                     f"{n}: {', '.join(sorted(set(comms)))} |")
    lines += ["", f"## Last worker registers → the command's first instruction (Ray {minimal}, {len(lat)} clusters)", "",
              f"median {statistics.median(lat):.0f} ms (min {min(lat):.0f}, max {max(lat):.0f}); "
              f"each: {', '.join(f'{x:.0f}' for x in lat)} ms", "",
              "Notes:",
              "- Registration is the head GCS's own log line `Registering new node ... node_name=training-1` "
              "(gcs_node_manager.cc, millisecond stamps); the first instruction is the program's first line, "
              "`time.time()` before `import ray` (the Python interpreter's start is included). Both on this "
              "machine's clock.",
              "- The barrier polls the GCS at most 4 times a second (275 ms apart); the worker is released at a "
              "random point of that interval, so a wait of up to one interval is expected, plus the poll, the "
              "spawn and Python's start.",
              "- `ray health-check` is what KubeRay's `wait-gcs-ready` init container runs every 5 s until the GCS "
              "answers; KubeRay's exec probe is its `BaseWgetHealthCommand` (Ray < 2.53; from 2.53 KubeRay uses "
              "HTTP GET `:52365/api/healthz`, the agent row above). Both need `ray[default]`; raylaunch needs "
              "nothing in the image but itself.",
              "- The pod's CPU per HTTP request is every process of the pod, from /proc in clock ticks (10 ms): "
              f"over {HTTP_RUNS} requests, a resolution of {10 / HTTP_RUNS:.2f} ms; the idle rate over the same "
              "wall time, measured right after, is taken off.",
              "- The dashboard agent's /api/local_raylet_healthz answers success even when the GCS is unreachable "
              "(ray-gcs-wire.md §6); raylaunch's answers are its own state plus at most one GCS or raylet RPC a "
              "second (docs/run.md).",
              ""]
    with open(OUT, "w") as f:
        f.write("\n".join(lines))
    log(f"wrote {OUT}")


if __name__ == "__main__":
    main()
