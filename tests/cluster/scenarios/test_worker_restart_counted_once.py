#!/usr/bin/python3
"""Scenario 8 of issue 12: a worker's container is OOM-killed during the join barrier and
restarts in the same pod (same hostname and IP, a new Ray node id). Until the GCS's health
checks declare the old node DEAD, the head's GCS has two ALIVE rows named training-1 — as many
ALIVE rows as the job has nodes while training-2 is still missing. The head counts training-1
once (and says so), does not start the command, and starts it once training-2 joins."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.scenario import gcs_nodes, launched, raylaunch_cluster, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402

# The GCS keeps a dead raylet ALIVE for failure_threshold x period (150 ms at time_scale 0.05)
# after its last answer; 100 failures keep the stale row for about 15 s: time for the
# container to restart and register again on a loaded machine, and several barrier polls.
HEALTH = {"RAY_health_check_failure_threshold": "100"}
COUNTED_ONCE = "2/3 nodes alive; missing: training-2; counted once despite a stale ALIVE entry: training-1"


def test_a_restarted_worker_is_counted_once():
    with raylaunch_cluster("p4de", replicas=3, image_env=HEALTH) as c:
        c.start(hold=["training-2"])
        wait_log(c, "training-0", "2/3 nodes alive; missing: training-2", 60)
        worker = c.pod("training-1")
        ip = worker.ip
        c.kill("training-1", signal.SIGKILL)  # an OOM kill: the container restarts in place
        c.wait_for(lambda: worker.restart_count == 1 and worker.running, 30, "training-1 restarted")
        wait_log(c, "training-0", COUNTED_ONCE, 60)
        rows = [r for r in gcs_nodes(c) if r[1] == "training-1"]
        assert len({node_id for _, _, node_id in rows}) == 2, f"training-1's rows in the head's GCS: {rows}"
        eq(launched(c), 0, "launch command runs while training-2 is missing")
        assert "3/3 nodes alive" not in c.pod("training-0").log_text()

        c.release("training-2")
        c.wait_for(lambda: launched(c) == 1, 60, "the launch command")
        wait_log(c, "training-0", "3/3 nodes alive after", 10)
        eq((worker.ip, worker.hostname, worker.exit_codes), (ip, "training-1", [137]),
           "training-1 (ip, hostname, exits)")
        eq([p.restart_count for p in c.pods], [0, 1, 0], "restarts")
        c.stop()
        eq(launched(c), 1, "launch command runs")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_a_restarted_worker_is_counted_once)
