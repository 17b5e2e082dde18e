#!/usr/bin/python3
"""Scenario 1 on the real Ray: the p4de overlay's 3 pods start together, each with
`raylaunch run` as PID 1 and the real `ray` from RAYLAUNCH_VENV. Once every node is ALIVE the
head runs the launch command, a real Ray program, exactly once: ray.init() sees 3 ALIVE nodes,
one task pinned to each node returns the hostname of the pod it ran in.

- Its exit status is the head's (3 here), and the termination message says so; the workers
  keep running; deleting the StatefulSet stops them cleanly (143).
- With the overlay's RAYLAUNCH_ON_SUCCESS=stay and a program that succeeds, the head stays up
  with healthy probes, nothing reruns, and deleting the StatefulSet ends every pod cleanly
  (head 0, workers 143), nothing left running.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import realray  # noqa: E402
from harness.scenario import (assert_clean_end, launched, program, raylaunch_cluster,  # noqa: E402
                              wait_exit, wait_log)
from harness.testing import eq, main  # noqa: E402

PODS = ["training-0", "training-1", "training-2"]


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
        # The head restarts (restartPolicy Always); delete the StatefulSet.
        c.stop()
        for name in PODS[1:]:
            assert_clean_end(c, c.pod(name).runs[0], name, 143, "stopped by SIGTERM while Ray ran")
    eq(c.leftovers(), [], "nothing left running")


def test_stay_keeps_the_cluster_up_until_deleted():
    with raylaunch_cluster("p4de", replicas=3) as c:
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

        c.stop()
        assert_clean_end(c, head.runs[0], head.name, 0, "the command had succeeded; stopped by SIGTERM while staying up")
        for name in PODS[1:]:
            assert_clean_end(c, c.pod(name).runs[0], name, 143, "stopped by SIGTERM while Ray ran")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_the_programs_status_is_the_heads, test_stay_keeps_the_cluster_up_until_deleted)
