#!/usr/bin/python3
"""The head lost and started again, three ways (issue 28): without GCS fault tolerance, with
Redis FT (a real redis-server), with Ray 2.60's embedded store (RocksDB on the head's volume).
Not a test: nothing fails on a slow figure. Results in benchmarks/results/gcs-store.md.

Each run: a head and a worker under `raylaunch run` on the real current release (the cluster
harness of tests/gcs/compat: each node a PID and mount namespace, as a pod), the head's command a
Ray program that counts its own runs in the GCS's internal KV (what Ray Train and Tune keep there
too) and reads back the Ray job it ran before. The whole head is SIGKILLed (a container kill) and
started again, as the kubelet restarts a container. What is measured:

- kill -> the head's command running again (its first line after ray.init());
- kill -> the worker ALIVE in the head's GCS again, and whether the worker's container had to
  start again (without FT the worker's head watch ends it: a new cluster);
- what the command found: its KV counter (kept or lost) and the jobs table.

  gcs_store_bench.py RAYLAUNCH RESULTS_MD [RUNS]    (benchmarks/gcs_store runs it as root)
"""
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "gcs", "compat"))
import raycluster as rc  # noqa: E402
from raycluster import Cluster, wait_for  # noqa: E402

raylaunch, results = sys.argv[1], sys.argv[2]
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
os.environ["RAYLAUNCH_BIN"] = raylaunch
REDIS_PORT = 6392

# The head's command: one line a user would log at the top of a training script.
PROGRAM = r'''
import ray, sys, time
from ray.experimental.internal_kv import _internal_kv_get, _internal_kv_put
ray.init(address="auto")
before = _internal_kv_get(b"bench/runs")
runs = int(before or 0) + 1
_internal_kv_put(b"bench/runs", str(runs).encode())
try:
    jobs = len(ray._private.state.state.job_table())  # the drivers the GCS remembers
except Exception as e:  # an internal API: say so rather than guess
    jobs = f"unknown({type(e).__name__})"
print(f"BENCH run={runs} kv_before={before.decode() if before else None} jobs={jobs}", flush=True)
time.sleep(100000)
'''


class Redis:
    def __init__(self, work):
        conf = os.path.join(work, "redis.conf")
        with open(conf, "w") as f:
            f.write(f"port {REDIS_PORT}\nbind 127.0.0.1\nsave \"\"\nappendonly no\ndir {work}\n")
        self.proc = subprocess.Popen(["redis-server", conf], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        wait_for(lambda: subprocess.run(["redis-cli", "-p", str(REDIS_PORT), "PING"], capture_output=True,
                                        text=True).stdout.strip() == "PONG", 30, "redis-server")

    def close(self):
        self.proc.kill()
        self.proc.wait()


def text(node):
    with open(node.log, errors="replace") as f:
        return f.read()


def bench_lines(node):
    return [line.split("BENCH ", 1)[1] for line in text(node).splitlines() if "BENCH run=" in line]


def one_run(mode, index):
    work = rc.work_dir(f"bench-{mode}-{index}")
    env, redis, store = {"RAYLAUNCH_HEAD_WATCH": "1s"}, None, None
    if mode == "redis":
        redis = Redis(work)
        env.update({"RAY_REDIS_ADDRESS": f"redis://127.0.0.1:{REDIS_PORT}",
                    "RAY_external_storage_namespace": f"bench{index}"})
    elif mode == "rocksdb":
        store = tempfile.mkdtemp(prefix="raylaunch-bench-store-", dir="/var/tmp")  # a disk, not tmpfs
        env.update({"RAY_gcs_storage": "rocksdb", "RAY_gcs_storage_path": store})
    program = os.path.join(work, "program.py")
    with open(program, "w") as f:
        f.write(PROGRAM)
    version = rc.current_release()
    python = os.path.join(rc.venv(version), "bin", "python")
    try:
        with Cluster(version, os.path.join(work, "c")) as c:
            head = c.add_node("training-0", head=True, env=env)
            # The worker's store path is never used (only the head's GCS writes one).
            worker = c.add_node("training-1", env=dict(env, RAY_gcs_storage_path=(store or "") + "-unused")
                                if store else env)
            head.start_raylaunch(2, [python, program])
            worker.start_raylaunch(2)
            c.wait_alive(["training-0", "training-1"])
            wait_for(lambda: bench_lines(head), 180, "the command's first run")
            worker.wait_settled()
            head.wait_settled()
            first_ids = {n["node_id"] for n in c.status()["nodes"] if n["node_name"] == "training-1"}
            killed = time.monotonic()
            head.crash()
            head.start_raylaunch(2, [python, program])
            restarted = [None]

            def worker_restarted_if_ended():
                if worker.proc.poll() is not None and restarted[0] is None:
                    restarted[0] = time.monotonic() - killed  # it ended: the kubelet starts it again
                    worker.start_raylaunch(2)

            seen = {}

            def both_again():
                """One look every 0.2 s at both: the command's line and the worker's row."""
                worker_restarted_if_ended()
                now = time.monotonic() - killed
                if "command" not in seen and bench_lines(head):  # the new start's log only
                    seen["command"] = now
                if "worker" not in seen:
                    s = c.status()
                    rows = s and [n for n in s["nodes"] if n["node_name"] == "training-1" and n["state"] == "ALIVE"]
                    if rows:
                        seen["worker"], seen["ids"] = now, {n["node_id"] for n in rows}
                return "command" in seen and "worker" in seen
            wait_for(both_again, 400, "the command's second run and the worker ALIVE again")
            command_again, worker_alive_s, ids = seen["command"], seen["worker"], seen["ids"]
            line = bench_lines(head)[-1]
            fields = dict(word.split("=", 1) for word in line.split())
            return {"mode": mode, "command_again_s": command_again, "worker_alive_s": worker_alive_s,
                    "worker_restarted": restarted[0] is not None, "same_worker_row": bool(ids & first_ids),
                    "kv_before": fields.get("kv_before"), "jobs": fields.get("jobs")}
    finally:
        if redis:
            redis.close()
        if store:
            shutil.rmtree(store, ignore_errors=True)


def bench():
    rows = []
    for index in range(RUNS):
        for mode in ("none", "redis", "rocksdb"):
            row = one_run(mode, index)
            print(f"  {mode} #{index + 1}: {row}", flush=True)
            rows.append(row)
    write(rows)


def median(rows, mode, key):
    return statistics.median(r[key] for r in rows if r["mode"] == mode)


def write(rows):
    names = {"none": "no FT", "redis": "Redis FT", "rocksdb": "RocksDB store"}
    version = rc.current_release()
    out = [f"# The head lost and started again: no FT, Redis FT, the RocksDB store\n",
           f"`benchmarks/gcs_store` ({RUNS} runs of each, interleaved), {time.strftime('%Y-%m-%d')}, "
           f"{os.cpu_count()} cores ({platform.machine()}), load {os.getloadavg()[0]:.2f} at the end (other "
           f"work ran beside it), Ray {version} in the cluster harness (tests/gcs/compat: each node a PID and "
           f"mount namespace, as a pod), a head and one worker under `raylaunch run`, the head's whole "
           f"node SIGKILLed and started again at once (a container kill and the kubelet's restart, "
           f"without its back-off). The worker's container, when its raylaunch ends, is started again "
           f"at once too. Medians.\n",
           "| | " + " | ".join(names.values()) + " |", "|---|---|---|---|"]
    for key, label in (("command_again_s", "kill → the head's command running again"),
                       ("worker_alive_s", "kill → the worker ALIVE in the head's GCS")):
        out.append(f"| {label} | " + " | ".join(f"{median(rows, m, key):.1f} s" for m in names) + " |")
    for label, fn in (("the worker's container started again",
                       lambda rs: f"{sum(r['worker_restarted'] for r in rs)}/{len(rs)}"),
                      ("the worker kept its node (same node id)",
                       lambda rs: f"{sum(r['same_worker_row'] for r in rs)}/{len(rs)}"),
                      ("the command's KV counter found (kept from the run before)",
                       lambda rs: f"{sum(r['kv_before'] not in (None, 'None') for r in rs)}/{len(rs)}"),
                      ("Ray jobs in the GCS's job table when the command ran again",
                       lambda rs: ", ".join(sorted({str(r['jobs']) for r in rs})))):
        out.append(f"| {label} | " + " | ".join(fn([r for r in rows if r["mode"] == m]) for m in names) + " |")
    out += ["", "Every run:", "", "| mode | command again | worker ALIVE | worker restarted | same node | KV | jobs |",
            "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {names[r['mode']]} | {r['command_again_s']:.1f} s | {r['worker_alive_s']:.1f} s | "
                   f"{'yes' if r['worker_restarted'] else 'no'} | {'yes' if r['same_worker_row'] else 'no'} | "
                   f"{r['kv_before']} | {r['jobs']} |")
    with open(results, "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    rc.main(bench)
