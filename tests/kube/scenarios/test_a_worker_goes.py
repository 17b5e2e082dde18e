#!/usr/bin/python3
"""A worker goes, on the real cluster: the StatefulSet controller, the kubelet and the real Ray
do what they do, and raylaunch does what docs/run.md says.

- `kubectl delete pod training-1` after the run: the kubelet's SIGTERM, raylaunch drains its node
  (the head's GCS records a preemption with raylaunch's message, not a crash), exits 143; the
  StatefulSet controller recreates the pod (new uid, new IP), which joins again; the head counts
  it once (3 ALIVE rows of 3 names, one DEAD row of the old training-1).
- training-2's container killed under the running program (its PID 1 SIGKILLed from the node,
  as the OOM killer or a crash ends it): the kubelet restarts the container in the same pod (same
  IP), the new raylaunch joins again, the program on the head goes on and is not run again.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import (alive_names, assert_clean_end, launched, nodes, program, raylaunch_run,  # noqa: E402
                               wait_exit, wait_log)
from kubetest.testing import eq, main  # noqa: E402

NAMES = ["training-0", "training-1", "training-2"]
MESSAGE = "raylaunch: pod training-1 received SIGTERM"


def test_a_deleted_worker_is_drained_recreated_and_counted_once():
    with raylaunch_run() as k:
        k.start()
        wait_log(k, "training-0", "staying up (--on-success stay)", 300)
        old = k.pod("training-1")
        k.delete_pod("training-1")
        run = k.wait_for(lambda: (r := k.pods_named("training-1")[0].runs) and r[0].ended and r[0], 120,
                         "the deleted training-1's exit")
        assert_clean_end(run, "training-1", 143, "stopped by SIGTERM while Ray ran; drained")
        new = k.wait_for(lambda: (p := k.pod("training-1")).uid != old.uid and p.ready and p, 240,
                         "training-1 recreated by the StatefulSet controller and Ready")
        assert new.ip != old.ip, (new.ip, old.ip)
        k.wait_for(lambda: alive_names(k) == NAMES, 120, "3 ALIVE nodes, one per pod", period=3)
        dead = [r for r in nodes(k) if r[0] == "DEAD"]
        eq([r[1] for r in dead], ["training-1"], "DEAD rows")
        assert dead[0][4].startswith("AUTOSCALER_DRAIN_PREEMPTED " + MESSAGE), dead[0]
        eq(launched(k), 1, "program starts")
        eq(k.pod("training-0").restart_count, 0, "the head's restarts")


def test_a_killed_worker_container_restarts_in_place_and_the_run_goes_on():
    with raylaunch_run(launch=program("--until-file", "/tmp/go")) as k:
        k.start()
        wait_log(k, "training-0", "PROGRAM running until /tmp/go exists", 300)
        before = k.pod("training-2")
        k.kill_container("training-2", signal.SIGKILL)
        run = wait_exit(k, "training-2", 0, 60)
        eq(run.exit_code, 137, "the killed container's exit status")
        k.wait_for(lambda: (p := k.pod("training-2")).restart_count == 1 and p.ready, 240,
                   "training-2 restarted in place by the kubelet and Ready")
        after = k.pod("training-2")
        eq((after.uid, after.ip), (before.uid, before.ip), "the same pod, the same IP")
        assert "joined the cluster" in after.runs[1].text() or "ray start" in after.runs[1].text(), \
            after.runs[1].text()[-2000:]
        k.wait_for(lambda: alive_names(k) == NAMES, 180, "3 ALIVE nodes again (the old row DEAD)", period=3)
        code, out = k.exec("training-0", ["touch", "/tmp/go"])
        eq(code, 0, f"touch /tmp/go in the head: {out}")
        wait_log(k, "training-0", "staying up (--on-success stay)", 120)
        eq(launched(k), 1, "program starts: it went on, not run again")


main(test_a_deleted_worker_is_drained_recreated_and_counted_once,
     test_a_killed_worker_container_restarts_in_place_and_the_run_goes_on)
