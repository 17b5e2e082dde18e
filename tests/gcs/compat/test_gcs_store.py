#!/usr/bin/env python3
"""The head's GCS store on a volume (RAY_gcs_storage=rocksdb) on the current release's real Ray,
through `raylaunch run` on nodes with PID and mount namespaces of their own (issue 28):

- the head killed with SIGKILL (every process: a container kill) and started again on its store:
  the worker is not restarted, its raylaunch goes on (no "new cluster"), its row is ALIVE again in
  the same cluster, and the head's command runs again, its RAYLAUNCH_RESTART_COUNT on from the
  store's record of its starts, and its barrier ending on its new raylet's row, not on the killed one's that the GCS recovered ALIVE;
- a store claimed by another cluster: the head exits 78 before `ray start`, naming that cluster.

The store lives on a disk under /var/tmp: the test's private /run is tmpfs, which raylaunch
refuses (a store in memory).
"""
import datetime
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import raycluster as rc  # noqa: E402
from raycluster import Cluster, Failure, wait_for  # noqa: E402


def expect(cond, message, detail=None):
    if not cond:
        raise Failure(message + (f"\n{detail}" if detail is not None else ""))


def log_of(node):
    with open(node.log, errors="replace") as f:
        return f.read()


def logged_at(log, text):
    """The wall time (ms) of the first log line containing `text`, or None."""
    for line in log.splitlines():
        if text in line:
            stamp = line.split(" ", 1)[0]
            return int(datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%f").timestamp() * 1000)
    return None


def store_env(path):
    return {"RAY_gcs_storage": "rocksdb", "RAY_gcs_storage_path": path, "RAYLAUNCH_HEAD_WATCH": "1s"}


def test_head_restart_on_its_store():
    version = rc.current_release()
    store = tempfile.mkdtemp(prefix="raylaunch-gcs-store-", dir="/var/tmp")
    try:
        with Cluster(version, rc.work_dir("gcs-store-restart")) as c:
            head = c.add_node("training-0", head=True, env=store_env(store))
            worker = c.add_node("training-1", env=store_env(store + "-unused"))
            head.start_raylaunch(2, ["sleep", "600"])
            worker.start_raylaunch(2)
            first = c.wait_alive(["training-0", "training-1"])
            worker.wait_settled()
            # Killed once its command has started (and recorded that start on the store): on a
            # loaded machine the barrier can end after the test saw both rows ALIVE.
            wait_for(lambda: "started the command (pid" in log_of(head), 240, "the head's command to start")
            ids = {n["node_id"] for n in first["nodes"] if n["node_name"] == "training-0"}
            expect(os.path.exists(os.path.join(store, "raylaunch-cluster")), "the store is claimed")
            head.crash()
            head.start_raylaunch(2, ["sleep", "600"])
            c.wait_alive(["training-0"], fresh_from=ids)
            wait_for(lambda: "belongs to training: the head comes back as the same cluster" in log_of(head), 60,
                     "the restarted head to take its store back")
            wait_for(lambda: "started the command (pid" in log_of(head), 240, "the command to run again")
            # The GCS recovers the killed raylet's row ALIVE: the barrier must wait for the new one.
            fresh = [n for n in c.rows("training-0", alive=True) if n["node_id"] not in ids]
            joined = logged_at(log_of(head), "nodes alive after")
            expect(fresh and joined is not None and fresh[0]["start_time_ms"] <= joined,
                   "the restarted head's barrier ended after its new raylet started, not on the dead one's row",
                   f"new rows {fresh}, barrier ended at {joined} ms\n{log_of(head)[-3000:]}")
            # The restarted container's command is a restart too: its count goes on from the store's record.
            expect("RAYLAUNCH_RESTART_COUNT goes on from 1" in log_of(head), "the count goes on", log_of(head)[-3000:])
            with open(os.path.join(store, "raylaunch-command-runs")) as f:
                expect(f.read() == "2\n", "two starts of the command recorded on the store")
            c.wait_alive(["training-1"])
            expect(worker.alive() and worker.starts == 1, "the worker's pod was not restarted", worker.tail())
            wlog = log_of(worker)
            expect("is a new cluster" not in wlog, "the worker's head watch saw the same cluster", wlog[-3000:])
            print(f"  head killed and restarted on its store: training-1 stayed up (one start), ALIVE in the "
                  f"same cluster", flush=True)
    finally:
        shutil.rmtree(store, ignore_errors=True)


def test_other_clusters_store_refused():
    version = rc.current_release()
    store = tempfile.mkdtemp(prefix="raylaunch-gcs-store-", dir="/var/tmp")
    try:
        with open(os.path.join(store, "raylaunch-cluster"), "w") as f:
            f.write("ml/other-run\n")
        with Cluster(version, rc.work_dir("gcs-store-other")) as c:
            head = c.add_node("training-0", head=True, env=store_env(store))
            head.start_raylaunch(1, ["true"])
            wait_for(lambda: not head.alive(), 60, "the head to end")
            log = log_of(head)
            expect(head.proc.returncode == 78, f"exit 78, not {head.proc.returncode}", log[-3000:])
            expect("holds the GCS database of cluster ml/other-run" in log, "the refusal names the cluster", log)
            expect("Ray runtime started" not in log and not os.path.exists(os.path.join(store, "kv")),
                   "nothing started: no Ray, no database", log)
            print("  another cluster's store: 78 before ray start, naming ml/other-run", flush=True)
    finally:
        shutil.rmtree(store, ignore_errors=True)


if __name__ == "__main__":
    rc.main(test_other_clusters_store_refused, test_head_restart_on_its_store)
