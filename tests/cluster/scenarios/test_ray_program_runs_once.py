#!/usr/bin/python3
"""Scenario 1 on the real Ray: the p4de overlay's 3 pods start together, each with
`raylaunch run` as PID 1 and the real `ray` from RAYLAUNCH_VENV. Once every node is ALIVE the
head runs the launch command, a real Ray program, exactly once: ray.init() sees 3 ALIVE nodes,
one task pinned to each node returns the hostname of the pod it ran in.

- Its exit status is the head's (3 here), and the termination message says so.
- With the overlay's RAYLAUNCH_ON_SUCCESS=stay and a program that succeeds, the head stays up
  with healthy probes and nothing reruns. Then SIGTERM to a worker (`kubectl delete pod
  training-2`): raylaunch hands it to `ray start`, which drains and stops its node; 143 on its
  own, well inside the grace period, no Ray process left for raylaunch to kill, nothing forced;
  the head's GCS shows that node DEAD at once, as a graceful stop. The GCS's health checks are
  slowed here so that they could not have noticed a crashed node during the test (with Ray's
  defaults a crash takes them 15-65 s): the DEAD row can only come from Ray's graceful stop.
  Last, deleting the StatefulSet ends the others cleanly (head 0, training-1 143).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import realray  # noqa: E402
from harness.scenario import (assert_clean_end, launched, program, raylaunch_cluster,  # noqa: E402
                              wait_exit, wait_log)
from harness.testing import eq, main  # noqa: E402

PODS = ["training-0", "training-1", "training-2"]
# The GCS marks a node DEAD after failure_threshold missed health checks, period_ms apart
# (Ray's defaults: 5 x 3 s). 1000 x 3 s: no health check can declare a node dead in this test.
NO_HEALTH_CHECK_DEATHS = {"RAY_health_check_failure_threshold": "1000"}


def check_the_program(c, run):
    """The program ran after the barrier saw every pod, on the head only, and each pinned
    task ran in its own pod."""
    log = run.text()
    assert log.index("3/3 nodes alive") < log.index("started the command"), log[-3000:]
    eq(realray.program_lines(run, "ray.init() connected"),
       ["ray.init() connected: 3 ALIVE nodes: training-0 training-1 training-2"], "what ray.init() saw")
    eq(realray.hostnames(run), PODS, "the hostnames the pinned tasks returned")
    for p in c.pods[1:]:
        assert "PROGRAM" not in p.log_text(), p.log_text()[-2000:]
        wait_log(c, p.name, "the launch command runs on the head only", 10)


def test_the_programs_status_is_the_heads():
    with raylaunch_cluster("p4de", replicas=3, launch=program("--exit", "3")) as c:
        c.start()
        run = wait_exit(c, "training-0", 0, 240)
        assert_clean_end(c, run, "training-0", 3, "command exited with 3 after ")
        check_the_program(c, run)
        eq(realray.program_lines(run, "exits"), ["exits 3"], "the program's last word")
        eq([p.restart_count for p in c.pods[1:]], [0, 0], "worker restarts")
    eq(c.leftovers(), [], "nothing left running")


def sigterm_to_a_worker(c, name):
    """`kubectl delete pod NAME`, kept from being recreated: it ends 143 without force and the
    head's GCS has its node DEAD at once, as a graceful stop."""
    node_id = next(r[2] for r in realray.nodes(c, c.venv) if r[0] == "ALIVE" and r[1] == name)
    c.hold(name)
    c.delete_pod(name)
    run = wait_exit(c, name, 0, 90)
    assert_clean_end(c, run, name, 143, "stopped by SIGTERM while Ray ran")
    for text in ("received SIGTERM", "sending SIGTERM to ray start", "ray start (pid"):
        assert text in run.text(), f"{text!r} not in\n{run.text()[-3000:]}"

    def dead():
        row = next((r for r in realray.nodes(c, c.venv) if r[2] == node_id), None)
        return row if row and row[0] == "DEAD" else None
    row = c.wait_for(dead, 60, f"{name} DEAD in the head's GCS")
    # Ray 2.60 records the drain `ray start` does on SIGTERM: AUTOSCALER_DRAIN_PREEMPTED,
    # "Node received SIGTERM; draining before shutdown." (older releases wrote
    # EXPECTED_TERMINATION); a health check's verdict would be UNEXPECTED_TERMINATION.
    assert not row[4].startswith("UNEXPECTED_TERMINATION") and "SIGTERM" in row[4], \
        f"{name}'s death in the GCS, not a graceful stop: {row}"


def test_stay_keeps_the_cluster_up_until_deleted():
    with raylaunch_cluster("p4de", replicas=3, image_env=NO_HEALTH_CHECK_DEATHS) as c:
        c.start()
        head = c.pod("training-0")
        wait_log(c, "training-0", "staying up (--on-success stay)", 240)
        check_the_program(c, head.current)
        c.wait_for(lambda: len(c.pods) == 3 and all(p.ready for p in c.pods), 60, "all pods ready")
        checks = len(c.probes_of(head, "liveness"))
        c.wait_for(lambda: len(c.probes_of(head, "liveness")) >= checks + 5, 30, "5 more liveness probes")
        ok, _, answer = c.http_get("training-0", 8081, "/livez")
        assert ok and "staying up" in answer, answer
        eq([p.restart_count for p in c.pods], [0, 0, 0], "restarts")
        eq(launched(c), 1, "program runs")
        ready_at = next(e.t for e in c.events if e.pod == head.name and e.reason == "Ready")
        eq([r for r in c.probes_of(head) if r.t >= ready_at and not r.ok], [], "the head's probes once it was ready")

        sigterm_to_a_worker(c, "training-2")
        eq(sorted(r[1] for r in realray.nodes(c, c.venv) if r[0] == "ALIVE"), ["training-0", "training-1"],
           "ALIVE nodes after training-2 stopped")

        c.stop()
        assert_clean_end(c, head.runs[0], head.name, 0, "the command had succeeded; stopped by SIGTERM while staying up")
        assert_clean_end(c, c.pod("training-1").runs[0], "training-1", 143, "stopped by SIGTERM while Ray ran")
        eq(launched(c), 1, "program runs")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_the_programs_status_is_the_heads, test_stay_keeps_the_cluster_up_until_deleted)
