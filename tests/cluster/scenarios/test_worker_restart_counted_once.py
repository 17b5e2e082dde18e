#!/usr/bin/python3
"""A worker's raylet SIGKILLed (an OOM kill) on the real Ray, during the join barrier while
training-2 is still missing. `ray start --block` sees its raylet die and stops the rest;
training-1's raylaunch exits 69 naming the reason (a Ray process of this pod died, the head
still answers); the kubelet restarts the container in the same pod (same hostname and IP) and
its new raylet registers again under the same node name. Until the GCS's health checks declare
the killed raylet DEAD, the head's GCS has two ALIVE rows named training-1 — as many ALIVE rows
as the job has nodes while training-2 is missing. The head counts training-1 once (and says
so) and does not start the program; once the old row is DEAD and training-2 joins, the program
runs once and sees exactly the 3 live nodes."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import realray  # noqa: E402
from harness.scenario import (assert_clean_end, kill_in_pod, launched, raylaunch_cluster,  # noqa: E402
                              wait_exit, wait_log)
from harness.testing import eq, main  # noqa: E402

# The GCS declares a raylet DEAD after failure_threshold failed health checks period_ms apart
# (Ray's defaults: 5 x 3 s). 30 x 1 s keeps the killed raylet's row ALIVE ~30 s: time for the
# container to restart and register again on a loaded 2-core machine.
HEALTH = {"RAY_health_check_failure_threshold": "30", "RAY_health_check_period_ms": "1000"}
COUNTED_ONCE = "2/3 nodes alive; missing: training-2; counted once despite a stale ALIVE entry: training-1"


def test_a_restarted_worker_is_counted_once():
    with raylaunch_cluster("p4de", replicas=3, image_env=HEALTH) as c:
        c.start(hold=["training-2"])
        wait_log(c, "training-0", "2/3 nodes alive; missing: training-2", 240)
        worker = c.pod("training-1")
        ip = worker.ip
        old_id = next(r[2] for r in realray.nodes(c, c.venv) if r[1] == "training-1")
        kill_in_pod(c, "training-1", "raylet")  # SIGKILL, as the OOM killer does
        run = wait_exit(c, "training-1", 0, 90)
        assert_clean_end(c, run, "training-1", 69, "ray start exited with 1", ray_outlived=True)
        assert "raylet" in run.message and "a Ray process of this pod died" in run.message, run.message

        c.wait_for(lambda: worker.restart_count == 1 and worker.running, 60, "training-1 restarted")
        wait_log(c, "training-0", COUNTED_ONCE, 120)
        rows = [r for r in realray.nodes(c, c.venv) if r[1] == "training-1"]
        eq(sorted(r[0] for r in rows), ["ALIVE", "ALIVE"], f"training-1's rows in the head's GCS: {rows}")
        eq(launched(c), 0, "program runs while training-2 is missing")
        assert "3/3 nodes alive" not in c.pod("training-0").log_text()

        # The killed raylet's row goes DEAD by the GCS's health checks; then the last pod.
        def old_row_dead():
            return any(r[2] == old_id and r[0] == "DEAD" for r in realray.nodes(c, c.venv))
        c.wait_for(old_row_dead, 120, "the killed raylet's row DEAD")
        c.release("training-2")
        wait_log(c, "training-0", "staying up (--on-success stay)", 240)
        head = c.pod("training-0").current
        eq(realray.program_lines(head, "ray.init() connected"),
           ["ray.init() connected: 3 ALIVE nodes: training-0 training-1 training-2"], "what ray.init() saw")
        eq(realray.hostnames(head), ["training-0", "training-1", "training-2"], "hostnames of the pinned tasks")
        eq((worker.ip, worker.hostname, worker.exit_codes), (ip, "training-1", [69]),
           "training-1 (ip, hostname, exits)")
        eq([p.restart_count for p in c.pods], [0, 1, 0], "restarts")
        eq(launched(c), 1, "program runs")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_a_restarted_worker_is_counted_once)
