#!/usr/bin/python3
"""SIGTERM to the head on the real Ray: the head pod is deleted (the kubelet's SIGTERM, then
SIGKILL after the grace period) during the join barrier and while the program runs. Either way
raylaunch stops what it started — the program first (it gets the SIGTERM and says so), then
Ray (`ray start` drains and stops its node) — and exits 143 on its own, before the grace
period, its termination message saying when it was stopped; nothing is forced and the
harness finds nothing left running."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import realray  # noqa: E402
from harness.scenario import (assert_clean_end, launched, program, raylaunch_cluster,  # noqa: E402
                              wait_exit, wait_log)
from harness.testing import eq, main  # noqa: E402


def delete_head(c):
    """`kubectl delete pod training-0`, its StatefulSet kept from recreating it."""
    c.hold("training-0")
    c.delete_pod("training-0")
    return wait_exit(c, "training-0", 0, 90)


def test_sigterm_during_the_barrier():
    with raylaunch_cluster("p4de", replicas=2) as c:
        c.start(hold=["training-1"])
        wait_log(c, "training-0", "1/2 nodes alive; missing: training-1", 240)
        run = delete_head(c)
        assert_clean_end(c, run, "training-0", 143, "stopped by SIGTERM during the join barrier")
        for text in ("received SIGTERM", "sending SIGTERM to ray start"):
            assert text in run.text(), f"{text!r} not in\n{run.text()[-3000:]}"
        # Its pid depends on the threads raylaunch started first (a thread takes a pid too).
        assert re.search(r"ray start \(pid \d+\) exited", run.text()), run.text()[-3000:]
        eq(launched(c), 0, "program runs")
    eq(c.leftovers(), [], "nothing left running")


def test_sigterm_while_the_program_runs():
    with raylaunch_cluster("p4de", replicas=2, launch=program("--until-sigterm")) as c:
        c.start()
        wait_log(c, "training-0", "PROGRAM running until SIGTERM", 240)
        run = delete_head(c)
        assert_clean_end(c, run, "training-0", 143, "stopped by SIGTERM while the command ran")
        eq(realray.hostnames(run), ["training-0", "training-1"], "hostnames of the pinned tasks")
        log = run.text()
        # The program was stopped first (and had its say), Ray after it.
        assert "PROGRAM got SIGTERM" in log, log[-3000:]
        assert log.index("PROGRAM got SIGTERM") < log.index("sending SIGTERM to ray start"), log[-3000:]
        assert "the command (pid" in log and "exited with 143" in log, log[-3000:]
        eq(launched(c), 1, "program runs")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_sigterm_during_the_barrier, test_sigterm_while_the_program_runs)
