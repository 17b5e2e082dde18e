#!/usr/bin/python3
"""Scenario 4 on the real Ray: one worker never starts (its pod stays unscheduled). With a
short RAYLAUNCH_JOIN_TIMEOUT the head gives up: exit 75, and its termination message (what
`kubectl describe pod` shows) names the missing pod and how many joined; the program never
ran; Ray was stopped without force; the StatefulSet restarts the head, as Kubernetes would."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.scenario import assert_clean_end, launched, raylaunch_cluster, wait_exit, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402

# Taken as given (explicit settings are not time-scaled). It counts from the barrier's start:
# long enough for the head's own raylet to register on a loaded 2-core machine (~5-20 s).
JOIN_TIMEOUT = "30s"


def test_a_worker_that_never_starts_ends_the_barrier_with_75():
    with raylaunch_cluster("p4de", replicas=2, env={"RAYLAUNCH_JOIN_TIMEOUT": JOIN_TIMEOUT}) as c:
        c.start(hold=["training-1"])
        wait_log(c, "training-0", "1/2 nodes alive; missing: training-1", 30)
        run = wait_exit(c, "training-0", 0, 90)
        want = f"join timed out after {JOIN_TIMEOUT}: 1/2 nodes alive; missing: training-1"
        assert_clean_end(c, run, "training-0", 75, want)
        eq(run.message.strip(), want, "the head's termination message")
        assert f"exiting 75: {want}" in run.text(), run.text()[-2000:]
        eq(launched(c), 0, "program runs")
        # restartPolicy Always: the kubelet starts the head again (a new barrier, same verdict).
        c.wait_for(lambda: c.pod("training-0").restart_count >= 1, 60, "the head restarted")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_a_worker_that_never_starts_ends_the_barrier_with_75)
