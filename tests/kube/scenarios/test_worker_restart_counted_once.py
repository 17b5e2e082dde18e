#!/usr/bin/python3
"""A worker's raylet SIGKILLed from the node (an OOM kill) during the join barrier while
training-2 is still missing (its pod held unscheduled), on the real cluster and the real Ray.
`ray start --block` sees its raylet die and stops the rest; training-1's raylaunch exits 69
naming the reason (a Ray process of this pod died, the head still answers); the kubelet restarts
the container in the same pod (same hostname and IP) and its new raylet registers again under
the same node name. Until the GCS's health checks declare the killed raylet DEAD, the head's GCS
has two ALIVE rows named training-1 — as many ALIVE rows as the job has nodes while training-2
is missing. The head counts training-1 once (and says so) and does not start the program; once
the old row is DEAD and training-2 joins, the program runs once and sees exactly the 3 live nodes.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import (assert_clean_end, assert_program_saw, launched, nodes,  # noqa: E402
                               raylaunch_run, wait_exit, wait_log)
from kubetest.testing import eq, main  # noqa: E402

# The GCS declares a raylet DEAD after failure_threshold failed health checks period_ms apart
# (Ray's defaults: 5 x 3 s). 40 x 1 s keeps the killed raylet's row ALIVE ~40 s: time for the
# kubelet to restart the container and its raylet to register again on a loaded 2-core machine.
HEALTH = {"RAY_health_check_failure_threshold": "40", "RAY_health_check_period_ms": "1000"}
COUNTED_ONCE = "2/3 nodes alive; missing: training-2; counted once despite a stale ALIVE entry: training-1"


def test_a_restarted_worker_is_counted_once():
    with raylaunch_run(replicas=3, env=HEALTH, gated=True) as k:
        k.start(hold=["training-2"])
        wait_log(k, "training-0", "2/3 nodes alive; missing: training-2", 300)
        before = k.pod("training-1")
        old_id = next(r[2] for r in nodes(k) if r[1] == "training-1")
        k.kill_in_pod("training-1", "raylet")  # SIGKILL, as the OOM killer does
        run = wait_exit(k, "training-1", 0, 90)
        assert_clean_end(run, "training-1", 69, "ray start exited with 1", ray_outlived=True)
        assert "raylet" in run.message and "a Ray process of this pod died" in run.message, run.message

        k.wait_for(lambda: (p := k.pod("training-1")).restart_count == 1 and p.running, 60, "training-1 restarted")
        wait_log(k, "training-0", COUNTED_ONCE, 120)
        rows = [r for r in nodes(k) if r[1] == "training-1"]
        eq(sorted(r[0] for r in rows), ["ALIVE", "ALIVE"], f"training-1's rows in the head's GCS: {rows}")
        eq(launched(k), 0, "program starts while training-2 is missing")
        assert "3/3 nodes alive" not in k.pod("training-0").log_text()

        # The killed raylet's row goes DEAD by the GCS's health checks; then the last pod comes.
        k.wait_for(lambda: any(r[2] == old_id and r[0] == "DEAD" for r in nodes(k)), 120,
                   "the killed raylet's row DEAD", period=3)
        k.release("training-2")
        wait_log(k, "training-0", "staying up (--on-success stay)", 300)
        head = k.pod("training-0").runs[0]
        assert_program_saw(head)
        after = k.pod("training-1")
        eq((after.uid, after.ip), (before.uid, before.ip), "training-1: the same pod, the same IP")
        eq([p.restart_count for p in k.pods], [0, 1, 0], "restarts")
        eq(launched(k), 1, "program starts")


main(test_a_restarted_worker_is_counted_once)
