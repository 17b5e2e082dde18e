#!/usr/bin/python3
"""The seed's way beside raylaunch's, on the real cluster of scripts/kube with the same image
(issue 25 item 4). Not a test: it measures and writes benchmarks/results/seed-vs-raylaunch.md.

  seed:      benchmarks/seed (the inline-bash StatefulSet users run today, on CPU here)
  raylaunch: manifests/overlays/local (the kit's base on CPU here)

Both run the same Ray program (tests/cluster/ray_program.py in the test image) as a training run
that goes on until its pod is deleted, with their own probes and graces: the seed applied with
`kubectl apply -k`, the kit's overlay with that launch command (as a user's overlay sets it).

1. apply → the launch command's first instruction (the program's own timestamp, before
   `import ray`), and → its `ray.init()` seeing all 3 nodes: RUNS times each, medians; and with
   the head's pod LATE_S late (a scheduling gate): its release → the first instruction.
2. `kubectl delete pod training-1` under the program: how the pod ends (exit status, time,
   killed after its grace?), when the new pod's node is ALIVE in the head's GCS, the rows the
   head's GCS then holds (a `ray.nodes()` count counts the DEAD one too).
3. `kubectl delete pod training-0`: when each worker's container ends, when every node is ALIVE
   in the new head's GCS, when the program runs again.
4. `kubectl delete` of the objects: how long until every pod's container ended, and how.
Whatever does not happen within BOUND_S is reported as such.

  scripts/kube up && scripts/kube image && benchmarks/kube_seed_bench.py [RUNS]
"""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "kube"))
from kubetest import workload  # noqa: E402
from kubetest.cluster import KubeRun, kubectl, require_cluster  # noqa: E402
from kubetest.scenario import NODES, PYTHON, launched  # noqa: E402
from kubetest.workload import render  # noqa: E402

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
RESULTS = os.path.join(HERE, "results", "seed-vs-raylaunch.md")
WAYS = {"seed": os.path.join(HERE, "seed"), "raylaunch": os.path.join(REPO, "manifests", "overlays", "local")}
NAMES = ["training-0", "training-1", "training-2"]


LAUNCH = ["python", "/opt/raylaunch-test/ray_program.py", "--until-sigterm"]  # the seed's too
RUNNING = "PROGRAM running until SIGTERM"
BOUND_S = 300  # how long a measurement waits for what may never come (then: "not within")


def start(way, hold=()):
    """The way's objects applied with `kubectl apply -k`, as a user does; both run the Ray program
    as a training run that goes on until its pod is deleted. `hold`: pods kept unscheduled (a
    scheduling gate) until released, as a node that boots late."""
    gated = bool(hold)
    if way == "seed":
        run = KubeRun(workload.prepare(render(WAYS["seed"]), gated=gated), gated=gated)
        if not gated:
            run.kustomize_dir = WAYS["seed"]
    else:
        # The kit's overlay with the user's launch command, in a kustomization of the user's own.
        run = KubeRun(workload.prepare(render(WAYS["raylaunch"]), workload.overrides(launch=LAUNCH), gated=gated),
                      gated=gated)
    run.start(hold=hold)
    return run, time.time()


def within(run, cond, what, timeout=BOUND_S, period=0.5):
    """cond()'s value, or None when it did not come within `timeout` (which is a result here)."""
    try:
        return run.wait_for(cond, timeout, what, period=period)
    except AssertionError:
        return None


def program_started(run, name="training-0"):
    """The epoch seconds of every `PROGRAM started on ... at T` of the pod, over its container starts."""
    out = []
    for pod in run.pods_named(name):
        for line in pod.log_text().splitlines():
            if "PROGRAM started on " in line:
                out.append(float(line.split(" at ")[1].split()[0]))
    return out


def alive_rows(run, head="training-0"):
    """(state, node IP) of the head's GCS rows. By IP, not name: the seed's `ray start` names no
    node, so Ray names each by its IP, while raylaunch names it after the pod."""
    code, out = run.exec(head, [PYTHON, NODES], timeout=90)
    if code != 0:
        return None
    return [(w[0], w[3]) for w in (line.split() for line in out.splitlines())
            if len(w) >= 4 and w[0] in ("ALIVE", "DEAD")]


def ended(pod):
    runs = pod.runs
    return runs[-1] if runs and runs[-1].ended else None


def running(run):
    run.wait_for(lambda: RUNNING in run.pod("training-0").log_text(), 600, "the program running")


def start_up(way):
    rows = []
    for _ in range(RUNS):
        run, applied = start(way)
        try:
            run.wait_for(lambda: program_started(run), 600, "the program's first instruction")
            first = program_started(run)[0] - applied
            run.wait_for(lambda: "ray.init() connected: 3 ALIVE nodes" in run.pod("training-0").log_text(),
                         600, "the program to see 3 nodes")
            rows.append((first, time.time() - applied))
        finally:
            run.teardown()
    return rows


LATE_S = 30  # how late the head's node is


def late_head(way):
    """The head's pod scheduled LATE_S after the workers' (its node still booting): its release →
    the command's first instruction, and how the workers spent the wait."""
    run, _ = start(way, hold=["training-0"])
    try:
        time.sleep(LATE_S)
        released = time.time()
        run.release("training-0")
        run.wait_for(lambda: program_started(run), 600, "the program's first instruction")
        return {"first_s": program_started(run)[0] - released,
                "worker_restarts": [run.pod(n).restart_count for n in NAMES[1:]]}
    finally:
        run.teardown()


def worker_deleted(way):
    run, _ = start(way)
    try:
        running(run)
        old = run.pod("training-1")
        t0 = time.time()
        run.delete_pod("training-1")
        gone = within(run, lambda: ended(run.pods_named("training-1")[0]), "the old pod's end")
        t_gone = time.time() - t0 if gone else None

        def rejoined():
            new = run.pod("training-1")
            rows = new.uid != old.uid and new.ip and alive_rows(run)
            return rows and (("ALIVE", new.ip) in rows) and rows
        rows = within(run, rejoined, "the new training-1 ALIVE", period=2)
        return {"exit": gone.exit_code if gone else None, "ended_s": t_gone,
                "alive_again_s": time.time() - t0 if rows else None,
                "rows": len(rows) if rows else None,
                "dead_rows": sum(1 for s, _ in rows if s == "DEAD") if rows else None,
                "head_restarts": run.pod("training-0").restart_count}
    finally:
        run.teardown()


def head_deleted(way):
    run, _ = start(way)
    try:
        running(run)
        old = run.pod("training-0")
        before = launched(run)
        t0 = time.time()
        run.delete_pod("training-0")
        ends = {}
        for w in NAMES[1:]:
            got = within(run, lambda w=w: ended(run.pod(w)) or run.pod(w).restart_count > 0, f"{w}'s container end")
            ends[w] = time.time() - t0 if got else None

        def rejoined():
            new = run.pod("training-0")
            rows = new.uid != old.uid and new.running and alive_rows(run)
            return rows and {ip for s, ip in rows if s == "ALIVE"} >= {run.pod(n).ip for n in NAMES}
        back = within(run, rejoined, "every node ALIVE in the new head's GCS", timeout=2 * BOUND_S, period=2)
        t_back = time.time() - t0 if back else None
        again = within(run, lambda: launched(run) > before, "the program on the new head")
        return {"worker_ended_s": ends, "rejoined_s": t_back,
                "program_again_s": time.time() - t0 if again else None,
                "worker_restarts": [run.pod(n).restart_count for n in NAMES[1:]]}
    finally:
        run.teardown()


def deleted(way):
    run, _ = start(way)
    try:
        running(run)
        run.wait_for(lambda: all(run.pod(n).running for n in NAMES), 300, "every pod running")
        t0 = time.time()
        kubectl("delete", "-k", run.kustomize_dir, "-n", run.namespace, "--wait=false", env=run.env) \
            if run.kustomize_dir else run.delete_workload()
        done = within(run, lambda: all(ended(run.pod(n)) for n in NAMES), "every pod's end")
        return {"took_s": time.time() - t0 if done else None,
                "exits": {n: (ended(run.pod(n)).exit_code if ended(run.pod(n)) else None) for n in NAMES}}
    finally:
        run.teardown()


def main():
    require_cluster()
    results = {way: {} for way in WAYS}
    for way in WAYS:
        print(f"{way}: start-up x{RUNS}", flush=True)
        results[way]["startup"] = start_up(way)
        print(f"{way}: the head {LATE_S} s late", flush=True)
        results[way]["late"] = late_head(way)
        print(f"{way}: a worker deleted", flush=True)
        results[way]["worker"] = worker_deleted(way)
        print(f"{way}: the head deleted", flush=True)
        results[way]["head"] = head_deleted(way)
        print(f"{way}: kubectl delete -k", flush=True)
        results[way]["delete"] = deleted(way)
    write(results)


def med(values):
    return statistics.median(values)


NOTES = "<!-- notes: written by hand; kept when the benchmark rewrites the tables above -->"


def secs(value):
    return f"not within {BOUND_S} s" if value is None else f"{value:.1f} s"


def write(r):
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    s, k = r["seed"], r["raylaunch"]
    lines = [
        "# The seed's way beside raylaunch's, on a real Kubernetes",
        "",
        f"`benchmarks/kube_seed_bench.py {RUNS}` at {commit}, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores "
        f"(load {load} at the end: other work ran beside it), Kubernetes 1.35.4 of scripts/kube, the test image "
        "(Ray 2.60.0), 3 pods, one way at a time: `benchmarks/seed` (the seed document's inline-bash "
        "StatefulSet, on CPU) beside `manifests/overlays/local` (the kit), each applied with "
        "`kubectl apply -k`, each with its own probes and graces, both running the same Ray program as a "
        "training run that goes on until its pod is deleted (`ray_program.py --until-sigterm`). Medians "
        f"of {RUNS} runs where it says so, else one run. \"not within {BOUND_S} s\": it had not happened "
        "when the measurement stopped waiting.",
        "",
        "## `kubectl apply -k` → the launch command",
        "",
        "| | seed | raylaunch | seed / raylaunch |",
        "|---|---|---|---|",
    ]
    for i, what in enumerate(["the command's first instruction", "its `ray.init()` sees all 3 nodes"]):
        a, b = med([x[i] for x in s["startup"]]), med([x[i] for x in k["startup"]])
        lines.append(f"| {what} (median of {RUNS}) | {a:.1f} s | {b:.1f} s | {a / b:.2f}× |")
    sl, kl = s["late"], k["late"]
    lines += [
        "",
        f"## The head's node {LATE_S} s late (its pod held by a scheduling gate, then released)",
        "",
        "| | seed | raylaunch |",
        "|---|---|---|",
        f"| the head scheduled → the command's first instruction | {sl['first_s']:.1f} s | {kl['first_s']:.1f} s |",
        f"| the workers' container restarts meanwhile | {sl['worker_restarts']} | {kl['worker_restarts']} |",
    ]
    sw, kw = s["worker"], k["worker"]
    lines += [
        "",
        "## `kubectl delete pod training-1` under the running program",
        "",
        "| | seed | raylaunch |",
        "|---|---|---|",
        f"| the deleted pod's exit status (137: SIGKILLed at the end of its grace) | {sw['exit']} | {kw['exit']} |",
        f"| deletion → its container ended | {secs(sw['ended_s'])} | {secs(kw['ended_s'])} |",
        f"| deletion → the new training-1 ALIVE in the head's GCS | {secs(sw['alive_again_s'])} | "
        f"{secs(kw['alive_again_s'])} |",
        f"| rows in the head's GCS then (ALIVE and DEAD: what a `ray.nodes()` count counts) | "
        f"{sw['rows']} ({sw['dead_rows']} DEAD) | {kw['rows']} ({kw['dead_rows']} DEAD) |",
        f"| the head's container restarts meanwhile | {sw['head_restarts']} | {kw['head_restarts']} |",
    ]
    sh, kh = s["head"], k["head"]
    lines += [
        "",
        "## `kubectl delete pod training-0` under the running program",
        "",
        "| | seed | raylaunch |",
        "|---|---|---|",
    ]
    for w in NAMES[1:]:
        lines.append(f"| deletion → {w}'s container ended | {secs(sh['worker_ended_s'][w])} | "
                     f"{secs(kh['worker_ended_s'][w])} |")
    lines += [
        f"| deletion → every node ALIVE in the new head's GCS | {secs(sh['rejoined_s'])} | {secs(kh['rejoined_s'])} |",
        f"| deletion → the program running again on the new head | {secs(sh['program_again_s'])} | "
        f"{secs(kh['program_again_s'])} |",
        f"| the workers' container restarts | {sh['worker_restarts']} | {kh['worker_restarts']} |",
        "",
        "## `kubectl delete -k` under the running program",
        "",
        "| | seed | raylaunch |",
        "|---|---|---|",
        f"| → every pod's container ended | {secs(s['delete']['took_s'])} | {secs(k['delete']['took_s'])} |",
        f"| exit statuses (137: SIGKILLed at the end of the grace) | {s['delete']['exits']} | {k['delete']['exits']} |",
        "",
    ]
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    try:  # the reading of the numbers, written by hand below the marker, survives a rerun
        with open(RESULTS) as f:
            old = f.read()
        if NOTES in old:
            lines += ["", old[old.index(NOTES):].rstrip()]
    except FileNotFoundError:
        pass
    with open(RESULTS, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
