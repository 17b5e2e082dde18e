#!/usr/bin/python3
"""The seed's way beside raylaunch's, on the real cluster of scripts/kube with the same image
(issue 25 item 4). Not a test: it measures and writes benchmarks/results/seed-vs-raylaunch.md.

  seed:      benchmarks/seed (the inline-bash StatefulSet users run today, on CPU here)
  raylaunch: manifests/overlays/local (the kit's base on CPU here)

Both run the same Ray program (tests/cluster/ray_program.py in the test image) as the launch
command, as the user applies them (`kubectl apply -k`), unchanged: their own probes and graces.

1. `kubectl apply -k` → the launch command's first instruction (the program's own timestamp,
   before `import ray`), and → its `ray.init()` seeing all 3 nodes: RUNS times each, medians.
2. `kubectl delete pod training-1` once the program ran: how the pod ends (exit status, time,
   killed after its grace?), and when the new pod's node is ALIVE in the head's GCS; the rows the
   head's GCS then holds (a `ray.nodes()` count counts the DEAD one too).
3. `kubectl delete pod training-0`: when each worker is back as an ALIVE node of the new head, and
   whether the program ran again.
4. `kubectl delete -k`: how long until every pod is gone, and how each ended.

  scripts/kube up && scripts/kube image && benchmarks/kube_seed_bench.py [RUNS]
"""
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "kube"))
from kubetest.cluster import KubeRun, kubectl, require_cluster  # noqa: E402
from kubetest.scenario import NODES, PYTHON, launched  # noqa: E402

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
RESULTS = os.path.join(HERE, "results", "seed-vs-raylaunch.md")
WAYS = {"seed": os.path.join(HERE, "seed"), "raylaunch": os.path.join(REPO, "manifests", "overlays", "local")}
NAMES = ["training-0", "training-1", "training-2"]


def start(way):
    run = KubeRun.as_user("local") if way == "raylaunch" else KubeRun(_render(WAYS["seed"]))
    if way == "seed":
        run.kustomize_dir = WAYS["seed"]
    run.start()
    return run, time.time()


def _render(path):
    sys.path.insert(0, os.path.join(REPO, "tests", "kube"))
    from kubetest.workload import render
    return render(path)


def program_started(run, name="training-0"):
    """The epoch seconds of every `PROGRAM started on ... at T` of the pod, over its container starts."""
    out = []
    for pod in run.pods_named(name):
        for line in pod.log_text().splitlines():
            if "PROGRAM started on " in line:
                out.append(float(line.split(" at ")[1].split()[0]))
    return out


def connected_at(run, timeout=600):
    """When the program's ray.init() saw all 3 nodes (the time of its line, from the node's log)."""
    def seen():
        return "ray.init() connected: 3 ALIVE nodes" in run.pod("training-0").log_text()
    run.wait_for(seen, timeout, "the program to see 3 nodes")
    return time.time()


def alive(run, head="training-0"):
    code, out = run.exec(head, [PYTHON, NODES], timeout=90)
    if code != 0:
        return None
    return [line.split()[:2] for line in out.splitlines() if line.split()[:1] in (["ALIVE"], ["DEAD"])]


def ended(pod):
    runs = pod.runs
    return runs[-1] if runs and runs[-1].ended else None


def start_up(way):
    rows = []
    for _ in range(RUNS):
        run, applied = start(way)
        try:
            run.wait_for(lambda: program_started(run), 600, "the program's first instruction")
            first = program_started(run)[0] - applied
            connected = connected_at(run) - applied
            rows.append((first, connected))
        finally:
            run.teardown()
    return rows


def worker_deleted(way):
    run, _ = start(way)
    try:
        run.wait_for(lambda: "PROGRAM exits" in run.pod("training-0").log_text(), 600, "the program to end")
        old = run.pod("training-1")
        t0 = time.time()
        run.delete_pod("training-1")
        gone = run.wait_for(lambda: (r := ended(run.pods_named("training-1")[0])) and r, 300, "the old pod's end")
        t_gone = time.time() - t0

        def rejoined():
            rows = alive(run)
            return rows and sum(1 for s, n in rows if s == "ALIVE" and n == "training-1") == 1 and \
                run.pod("training-1").uid != old.uid and rows
        rows = run.wait_for(rejoined, 600, "the new training-1 ALIVE", period=2)
        t_back = time.time() - t0
        return {"exit": gone.exit_code, "ended_s": t_gone, "alive_again_s": t_back,
                "rows": len(rows), "dead_rows": sum(1 for s, _ in rows if s == "DEAD"),
                "message": (gone.message or "").strip().splitlines()[-1:] or [""]}
    finally:
        run.teardown()


def head_deleted(way):
    run, _ = start(way)
    try:
        run.wait_for(lambda: "PROGRAM exits" in run.pod("training-0").log_text(), 600, "the program to end")
        old = run.pod("training-0")
        before = launched(run)
        t0 = time.time()
        run.delete_pod("training-0")
        run.wait_for(lambda: run.pod("training-0").uid != old.uid and run.pod("training-0").running, 300,
                     "the new head")

        def rejoined():
            rows = alive(run)
            return rows and sorted(n for s, n in rows if s == "ALIVE") == NAMES
        run.wait_for(rejoined, 900, "every node ALIVE in the new head's GCS", period=2)
        t_back = time.time() - t0
        run.wait_for(lambda: launched(run) > before, 300, "the program on the new head")
        t_program = time.time() - t0
        restarts = [run.pod(n).restart_count for n in NAMES[1:]]
        return {"rejoined_s": t_back, "program_again_s": t_program, "worker_restarts": restarts}
    finally:
        run.teardown()


def deleted(way):
    run, _ = start(way)
    try:
        run.wait_for(lambda: "PROGRAM exits" in run.pod("training-0").log_text(), 600, "the program to end")
        run.wait_for(lambda: all(run.pod(n).running for n in NAMES), 300, "every pod running")
        t0 = time.time()
        kubectl("delete", "-k", run.kustomize_dir, "-n", run.namespace, "--wait=false", env=run.env)
        run.wait_for(lambda: all(ended(run.pod(n)) for n in NAMES), 400, "every pod's end")
        took = time.time() - t0
        return {"took_s": took, "exits": {n: ended(run.pod(n)).exit_code for n in NAMES}}
    finally:
        run.teardown()


def main():
    require_cluster()
    results = {way: {} for way in WAYS}
    for way in WAYS:
        print(f"{way}: start-up x{RUNS}", flush=True)
        results[way]["startup"] = start_up(way)
        print(f"{way}: a worker deleted", flush=True)
        results[way]["worker"] = worker_deleted(way)
        print(f"{way}: the head deleted", flush=True)
        results[way]["head"] = head_deleted(way)
        print(f"{way}: kubectl delete -k", flush=True)
        results[way]["delete"] = deleted(way)
    write(results)


def med(values):
    return statistics.median(values)


def write(r):
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    s, k = r["seed"], r["raylaunch"]
    lines = [
        "# The seed's way beside raylaunch's, on a real Kubernetes",
        "",
        f"`benchmarks/kube_seed_bench.py {RUNS}` at {commit}, {time.strftime('%Y-%m-%d')}, on "
        f"{platform.node()} ({os.cpu_count()} cores; load {load} at the end), Kubernetes 1.35.4 of scripts/kube, "
        "the test image (Ray 2.60.0), 3 pods: `benchmarks/seed` (the inline-bash StatefulSet of "
        "the seed document, on CPU) beside `manifests/overlays/local` (the kit), each applied "
        "with `kubectl apply -k` unchanged, running the same Ray program. Medians of "
        f"{RUNS} runs where it says so, else one run.",
        "",
        "## `kubectl apply -k` → the launch command",
        "",
        "| | seed | raylaunch | seed / raylaunch |",
        "|---|---|---|---|",
    ]
    for i, what in enumerate(["the command's first instruction", "its `ray.init()` sees all 3 nodes"]):
        a, b = med([x[i] for x in s["startup"]]), med([x[i] for x in k["startup"]])
        lines.append(f"| {what} (median of {RUNS}) | {a:.1f} s | {b:.1f} s | {a / b:.2f}× |")
    lines += [
        "",
        "## `kubectl delete pod training-1` after the run",
        "",
        "| | seed | raylaunch |",
        "|---|---|---|",
        f"| the deleted pod's exit status | {s['worker']['exit']} | {k['worker']['exit']} |",
        f"| deletion → its container ended | {s['worker']['ended_s']:.1f} s | {k['worker']['ended_s']:.1f} s |",
        f"| deletion → the new training-1 ALIVE in the head's GCS | {s['worker']['alive_again_s']:.1f} s | "
        f"{k['worker']['alive_again_s']:.1f} s |",
        f"| rows in the head's GCS then (a `ray.nodes()` count counts them all) | {s['worker']['rows']} "
        f"({s['worker']['dead_rows']} DEAD) | {k['worker']['rows']} ({k['worker']['dead_rows']} DEAD) |",
        "",
        "## `kubectl delete pod training-0` after the run",
        "",
        "| | seed | raylaunch |",
        "|---|---|---|",
        f"| deletion → both workers ALIVE in the new head's GCS | {s['head']['rejoined_s']:.1f} s | "
        f"{k['head']['rejoined_s']:.1f} s |",
        f"| deletion → the program running again on the new head | {s['head']['program_again_s']:.1f} s | "
        f"{k['head']['program_again_s']:.1f} s |",
        f"| the workers' container restarts | {s['head']['worker_restarts']} | {k['head']['worker_restarts']} |",
        "",
        "## `kubectl delete -k`",
        "",
        "| | seed | raylaunch |",
        "|---|---|---|",
        f"| → every pod's container ended | {s['delete']['took_s']:.1f} s | {k['delete']['took_s']:.1f} s |",
        f"| exit statuses (137: SIGKILLed at the end of the grace) | {s['delete']['exits']} | {k['delete']['exits']} |",
        "",
    ]
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
