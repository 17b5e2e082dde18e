#!/usr/bin/python3
"""SIGTERM to a worker on the real Ray (`kubectl delete pod training-2`, its StatefulSet kept
from recreating it): raylaunch hands the SIGTERM to `ray start`, which drains and stops its
node; raylaunch exits 143 on its own, well inside the grace period, with no Ray process left
for it to kill and nothing forced. The head's GCS shows that node DEAD at once, as a graceful
stop (Ray 2.60: AUTOSCALER_DRAIN_PREEMPTED, "Node received SIGTERM"): the GCS's health checks are slowed down here so that they could
not have noticed a crashed node during the test (with Ray's defaults a crash takes them
15-65 s), so the DEAD row can only come from Ray's own graceful stop."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import realray  # noqa: E402
from harness.scenario import assert_clean_end, raylaunch_cluster, wait_exit, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402

# The GCS marks a node DEAD after failure_threshold missed health checks, period_ms apart
# (Ray's defaults: 5 x 3 s). 1000 x 3 s: no health check can declare a node dead in this test.
NO_HEALTH_CHECK_DEATHS = {"RAY_health_check_failure_threshold": "1000"}


def test_a_deleted_worker_stops_ray_and_its_node_is_dead_at_once():
    with raylaunch_cluster("p4de", replicas=3, image_env=NO_HEALTH_CHECK_DEATHS) as c:
        c.start()
        wait_log(c, "training-0", "staying up (--on-success stay)", 240)
        alive = [r for r in realray.nodes(c, c.venv) if r[0] == "ALIVE"]
        eq(sorted(r[1] for r in alive), ["training-0", "training-1", "training-2"], "ALIVE nodes")
        worker_id = next(r[2] for r in alive if r[1] == "training-2")

        c.hold("training-2")
        c.delete_pod("training-2")
        run = wait_exit(c, "training-2", 0, 90)
        assert_clean_end(c, run, "training-2", 143, "stopped by SIGTERM while Ray ran")
        log = run.text()
        for text in ("received SIGTERM", "sending SIGTERM to ray start", "ray start (pid"):
            assert text in log, f"{text!r} not in\n{log[-3000:]}"

        def dead():
            row = next((r for r in realray.nodes(c, c.venv) if r[2] == worker_id), None)
            return row if row and row[0] == "DEAD" else None
        row = c.wait_for(dead, 60, "training-2 DEAD in the head's GCS")
        # Ray 2.60 records the drain `ray start` does on SIGTERM: AUTOSCALER_DRAIN_PREEMPTED,
        # "Node received SIGTERM; draining before shutdown." (older releases wrote
        # EXPECTED_TERMINATION); a health check's verdict would be UNEXPECTED_TERMINATION.
        assert not row[4].startswith("UNEXPECTED_TERMINATION") and "SIGTERM" in row[4], \
            f"training-2's death in the GCS, not a graceful stop: {row}"
        alive = sorted(r[1] for r in realray.nodes(c, c.venv) if r[0] == "ALIVE")
        eq(alive, ["training-0", "training-1"], "ALIVE nodes after the worker stopped")
        eq([p.restart_count for p in c.pods], [0, 0], "restarts of the others")
        c.stop()
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_a_deleted_worker_stops_ray_and_its_node_is_dead_at_once)
