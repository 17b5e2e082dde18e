#!/usr/bin/python3
"""SIGTERM to the head on the real cluster and the real Ray: `kubectl delete pod training-0`
(the kubelet's SIGTERM, then SIGKILL after the grace period) during the join barrier and while
the program runs, its successor held unscheduled. Either way raylaunch stops what it started —
the program first (it gets the SIGTERM and says so), then Ray (`ray start` drains and stops its
node) — and exits 143 on its own, before the grace period, its termination message saying when
it was stopped; nothing is forced.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import (assert_clean_end, first_exit, hostnames, launched, program,  # noqa: E402
                               raylaunch_run, wait_log)
from kubetest.testing import eq, main  # noqa: E402


def delete_head(k):
    """`kubectl delete pod training-0`, its successor held unscheduled."""
    k.hold("training-0")
    k.delete_pod("training-0")
    return first_exit(k, "training-0", 120)


def test_sigterm_during_the_barrier():
    with raylaunch_run(replicas=2, gated=True) as k:
        k.start(hold=["training-1"])
        wait_log(k, "training-0", "1/2 nodes alive; missing: training-1", 300)
        run = delete_head(k)
        assert_clean_end(run, "training-0", 143, "stopped by SIGTERM during the join barrier")
        for text in ("received SIGTERM", "sending SIGTERM to ray start"):
            assert text in run.text(), f"{text!r} not in\n{run.text()[-3000:]}"
        assert re.search(r"ray start \(pid \d+\) exited", run.text()), run.text()[-3000:]
        eq(launched(k), 0, "program starts")


def test_sigterm_while_the_program_runs():
    with raylaunch_run(replicas=2, launch=program("--until-sigterm"), gated=True) as k:
        k.start()
        wait_log(k, "training-0", "PROGRAM running until SIGTERM", 300)
        run = delete_head(k)
        assert_clean_end(run, "training-0", 143, "stopped by SIGTERM while the command ran")
        eq(hostnames(run), ["training-0", "training-1"], "hostnames of the pinned tasks")
        log = run.text()
        # The program was stopped first (and had its say), Ray after it.
        assert "PROGRAM got SIGTERM" in log, log[-3000:]
        assert log.index("PROGRAM got SIGTERM") < log.index("sending SIGTERM to ray start"), log[-3000:]
        assert "the command (pid" in log and "exited with 143" in log, log[-3000:]
        eq(launched(k), 1, "program starts")


main(test_sigterm_during_the_barrier, test_sigterm_while_the_program_runs)
