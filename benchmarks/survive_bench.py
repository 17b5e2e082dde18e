#!/usr/bin/python3
"""The benchmarks of issue 19 (not tests: nothing fails on a slow figure). Results in
benchmarks/results/survive.md.

1. What the head watch costs the GCS per worker per minute: RPCs and protobuf payload bytes,
   against the FAKE GCS of tests/fakes/gcs at 4 and 4,096 nodes for the three request layouts (Ray
   2.9, 2.40, 2.60), and on the real Ray (the worker's own /metrics over a minute).
2. Detection, on the real Ray in the cluster harness, raylaunch of this branch beside raylaunch
   of main (before issue 19): a head replaced (its container killed and restarted: a new
   cluster) → the worker's exit; a frozen raylet (SIGSTOP) declared DEAD → the worker's exit; a
   busy worker deleted → its exit, and what the GCS records about its node.
3. Restarts: a worker's container killed under a task of the program → the program running
   again: in place (RAYLAUNCH_RESTARTS=1) against the head's container restarting under the
   kubelet (main), with the harness's kubelet back-off unscaled.

  survive_bench.py NEW_RAYLAUNCH OLD_RAYLAUNCH FAKE_GCS WATCH_BENCH RESULTS_MD [CLUSTER_DIR]
"""
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gcs_bench import Fake, out  # noqa: E402

new_rl, old_rl, fake_bin, watch_bin, results = sys.argv[1:6]
CLUSTER = sys.argv[6] if len(sys.argv) > 6 else os.path.join(os.path.dirname(HERE), "tests", "cluster")
sys.path.insert(0, CLUSTER)
os.environ["RAYLAUNCH_BIN"] = new_rl
from survive import FAST_HEALTH, PROGRAM  # noqa: E402
from harness import realray  # noqa: E402
from harness.scenario import kill_in_pod, raylaunch_cluster, wait_log  # noqa: E402
WATCH_PERIOD_S = 2  # RAYLAUNCH_HEAD_WATCH's default


def cluster(binary, **kw):
    os.environ["RAYLAUNCH_BIN"] = binary
    c = raylaunch_cluster("p4de", **kw)
    return c


# --- 1. the watch's cost ----------------------------------------------------------------------

def watch_cost_fake():
    rows = []
    looks = 30  # one minute at the default period
    with tempfile.TemporaryDirectory() as work:
        for version in ["2.9.0", "2.40.0", "2.60.0"]:
            for nodes in [4, 4096]:
                fake = Fake(fake_bin, work, f"w{version}-{nodes}", "--ray-version", version)
                fake.ctl("fill", str(nodes), "training")
                # The last line is the JSON (spdlog's lines come first on stdout).
                mine = json.loads(out(watch_bin, fake.address, "training-3", str(looks)).splitlines()[-1])
                stats = fake.stats()
                rows.append({"version": version, "nodes": nodes, "rpcs": mine["rpcs"],
                             "sent": mine["bytes_sent"], "received": mine["bytes_received"],
                             "gcs_calls": sum(int(v) for k, v in stats.items() if k.startswith("calls.")),
                             "gcs_reply_bytes": fake.reply_bytes(), "ms_per_look": mine["ms_per_look"]})
                # What one whole-table read (the old readiness probe on <= 2.35) costs, for scale.
                fake.ctl("reset-stats")
                out(fake_bin, "nodes", "--address", fake.address)
                rows[-1]["table_bytes"] = fake.reply_bytes()
                fake.close()
    return rows


def metric(text, name):
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def watch_cost_real():
    with cluster(new_rl, replicas=2, launch=["python", PROGRAM, "--wait"]) as c:
        c.start()
        wait_log(c, "training-0", "SURVIVE running until SIGTERM", 300)
        wait_log(c, "training-1", "watching the head: training-1 is node", 120)
        _, _, m0 = c.http_get("training-1", 8081, "/metrics")
        t0 = time.monotonic()
        time.sleep(60)
        _, _, m1 = c.http_get("training-1", 8081, "/metrics")
        minutes = (time.monotonic() - t0) / 60
        names = ["raylaunch_head_watch_rpcs_total", 'raylaunch_head_watch_bytes_total{direction="sent"}',
                 'raylaunch_head_watch_bytes_total{direction="received"}']
        return {n: (metric(m1, n) - metric(m0, n)) / minutes for n in names}


# --- 2. detection ----------------------------------------------------------------------------

def until_exit(c, pod, run, timeout):
    """Seconds until container start `run` of `pod` ended (None: still running at `timeout`), and its message."""
    t0 = time.monotonic()
    try:
        c.wait_for(lambda: len(pod.runs) > run and pod.runs[run].message is not None, timeout, "exit")
    except TimeoutError:
        return None, "(still running)"
    return time.monotonic() - t0, pod.runs[run].message


def head_replaced(binary):
    with cluster(binary, replicas=2, launch=["python", PROGRAM, "--wait"]) as c:
        c.start()
        wait_log(c, "training-0", "SURVIVE running until SIGTERM", 300)
        time.sleep(5)  # the worker's raylet registered, its watch running
        worker = c.pod("training-1")
        c.kill("training-0", signal.SIGKILL)
        return until_exit(c, worker, 0, 150)


def frozen_raylet(binary):
    with cluster(binary, replicas=2, image_env=FAST_HEALTH, launch=["python", PROGRAM, "--wait"]) as c:
        c.start()
        wait_log(c, "training-0", "SURVIVE running until SIGTERM", 300)
        time.sleep(5)
        worker = c.pod("training-1")
        kill_in_pod(c, "training-1", "raylet", signal.SIGSTOP)
        took, message = until_exit(c, worker, 0, 120)
        rows = [r for r in realray.nodes(c, c.venv) if r[1] == "training-1"]
        return took, message, rows


def busy_worker_deleted(binary):
    with cluster(binary, replicas=2, env={"RAYLAUNCH_TERM_GRACE": "8s"},
                 launch=["python", PROGRAM, "--pin", "training-1", "--on-failure", "wait"]) as c:
        c.image_env.pop("RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S", None)  # Ray's default, as a user has it
        c.start()
        wait_log(c, "training-0", "SURVIVE task on training-1 submitted", 300)
        c.wait_for(lambda: os.path.exists(c.path_in("training-1", "/tmp/survive-task-running")), 120, "the task")
        worker = c.pod("training-1")
        c.delete_pod("training-1")
        took, message = until_exit(c, worker, 0, 90)
        dead = c.wait_for(lambda: [r for r in realray.nodes(c, c.venv) if r[1] == "training-1" and r[0] == "DEAD"],
                          90, "DEAD")
        return took, message, dead[0][4], worker.runs[0].text().count("SIGKILL to its group")


# --- 3. restarts -----------------------------------------------------------------------------

def worker_lost_then_rerun(binary, in_place):
    env = {"RAYLAUNCH_RESTARTS": "1"} if in_place else {}
    with cluster(binary, replicas=2, image_env=FAST_HEALTH, env=env, time_scale=1.0,
                 launch=["python", PROGRAM, "--pin", "training-1", "--restarted-exit", "0"]) as c:
        c.start()
        wait_log(c, "training-0", "SURVIVE task on training-1 submitted", 300)
        c.wait_for(lambda: os.path.exists(c.path_in("training-1", "/tmp/survive-task-running")), 120, "the task")
        head = c.pod("training-0")
        t0 = time.monotonic()
        c.kill("training-1", signal.SIGKILL)

        def starts():
            return sum(r.text().count("SURVIVE started on training-0") for r in head.runs)
        c.wait_for(lambda: starts() >= 2, 600, "the program again")
        took = time.monotonic() - t0
        return took, head.restart_count, c.pod("training-1").restart_count


def main():
    report = {}
    report["fake"] = watch_cost_fake()
    report["real_cost"] = watch_cost_real()
    for name, binary in [("new", new_rl), ("old", old_rl)]:
        report[f"replaced_{name}"] = head_replaced(binary)
        report[f"frozen_{name}"] = frozen_raylet(binary)
        report[f"drain_{name}"] = busy_worker_deleted(binary)
    report["rerun_in_place"] = worker_lost_then_rerun(new_rl, True)
    report["rerun_old"] = worker_lost_then_rerun(old_rl, False)
    write(report)


def fmt(s):
    return "never (still running after the wait)" if s is None else f"{s:.1f} s"


def write(r):
    lines = ["# Surviving what ends runs (issue 19): benchmark results", "",
             f"`benchmarks/survive` on {platform.node()} ({os.cpu_count()} CPUs, shared with other work), "
             f"{time.strftime('%Y-%m-%d')}, one run; the real Ray is {realray.release(realray.current_venv())} in "
             "the cluster harness's pods. \"before\" is raylaunch built from main before issue 19 "
             "(`" + os.path.basename(os.path.dirname(os.path.dirname(old_rl))) + "`), same pods, same program.", ""]
    lines += ["## 1. The head watch's cost to the GCS, per worker per minute (one look every 2 s: 30 looks)", "",
              "Fake GCS (tests/fakes/gcs), its own counters beside the watch's:", "",
              "| GCS layout | nodes | RPCs | bytes sent | bytes received | GCS calls | GCS reply bytes | one whole table |",
              "|---|---|---|---|---|---|---|---|"]
    for x in r["fake"]:
        lines.append(f"| Ray {x['version']} | {x['nodes']} | {x['rpcs']} | {x['sent']} | {x['received']} | "
                     f"{x['gcs_calls']} | {x['gcs_reply_bytes']} | {x['table_bytes']} |")
    rc = list(r["real_cost"].values())  # RPCs, bytes sent, bytes received per minute
    lines += ["", "Real Ray, a worker's own /metrics over one minute: "
              f"{rc[0]:.0f} RPCs, {rc[1]:.0f} bytes sent, {rc[2]:.0f} bytes received.", ""]
    lines += ["## 2. Detection (real Ray)", "", "| what | before (main) | with issue 19 |", "|---|---|---|"]
    lines.append(f"| head container killed and restarted → worker exits | {fmt(r['replaced_old'][0])}: "
                 f"`{(r['replaced_old'][1] or '')[:120]}` | {fmt(r['replaced_new'][0])}: "
                 f"`{(r['replaced_new'][1] or '')[:120]}` |")
    lines.append(f"| worker's raylet frozen (SIGSTOP) → worker exits | {fmt(r['frozen_old'][0])} | "
                 f"{fmt(r['frozen_new'][0])}: `{(r['frozen_new'][1] or '')[:120]}` |")
    for key, label in [("drain_old", "before"), ("drain_new", "with issue 19")]:
        took, message, death, killed = r[key]
        lines.append(f"| busy worker deleted ({label}) | {fmt(took)} to exit, {killed} SIGKILL of Ray's group | "
                     f"GCS records: `{death[:160]}` |")
    lines += ["", "## 3. A worker's container killed under the program → the program running again (real Ray, "
              "kubelet back-off unscaled)", "", "| | seconds | head container restarts | worker container restarts |",
              "|---|---|---|---|"]
    for key, label in [("rerun_old", "before: the head exits, its container restarts"),
                       ("rerun_in_place", "RAYLAUNCH_RESTARTS=1: rerun in place")]:
        took, head_restarts, worker_restarts = r[key]
        lines.append(f"| {label} | {took:.1f} | {head_restarts} | {worker_restarts} |")
    old, new = r["rerun_old"][0], r["rerun_in_place"][0]
    lines += ["", f"In place is {old / new:.1f}× faster on this first failure; the kubelet doubles its back-off "
              "from 10 s on each further restart within 10 minutes (up to 5 min), which a rerun in place never "
              "waits for.", ""]
    with open(results, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
