#!/usr/bin/python3
"""Scenario 6 of issue 12: the head pod is deleted (the kubelet's SIGTERM, then SIGKILL after
the grace period) during the join barrier and while the command runs. Either way raylaunch
stops what it started (the command first, with its term grace; then Ray) and exits 143 on
its own, before the grace period, its termination message saying when it was stopped; no
process outlives it and the harness finds nothing left running."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.scenario import assert_clean_end, launched, raylaunch_cluster, wait_exit, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402

# A training command that checkpoints on SIGTERM: it says so and exits 143 a moment later.
TRAINING = ["sh", "-c", 'trap \'echo "COMMAND got SIGTERM, checkpointing"; sleep 0.5; exit 143\' TERM; '
            'echo "LAUNCH on $HOSTNAME"; while :; do sleep 0.1; done']


def delete_head(c):
    """`kubectl delete pod training-0`, its StatefulSet kept from recreating it."""
    c.hold("training-0")
    c.delete_pod("training-0")
    return wait_exit(c, "training-0", 0, 60)


def test_sigterm_during_the_barrier():
    with raylaunch_cluster("p4de", replicas=3) as c:
        c.start(hold=["training-2"])
        wait_log(c, "training-0", "2/3 nodes alive; missing: training-2", 60)
        run = delete_head(c)
        assert_clean_end(c, run, "training-0", 143, "stopped by SIGTERM during the join barrier")
        for text in ("received SIGTERM", "sending SIGTERM to ray start"):
            assert text in run.text(), f"{text!r} not in\n{run.text()[-2000:]}"
        # Its pid depends on the threads raylaunch started first (a thread takes a pid too).
        assert re.search(r"ray start \(pid \d+\) exited", run.text()), run.text()[-2000:]
        eq(launched(c), 0, "launch command runs")
        c.stop()
    eq(c.leftovers(), [], "nothing left running")


def test_sigterm_while_the_command_runs():
    with raylaunch_cluster("p4de", replicas=2, launch=TRAINING) as c:
        c.start()
        wait_log(c, "training-0", "LAUNCH on training-0", 60)
        run = delete_head(c)
        assert_clean_end(c, run, "training-0", 143, "stopped by SIGTERM while the command ran")
        log = run.text()
        # The command was stopped first (and had its say), Ray after it.
        assert "COMMAND got SIGTERM, checkpointing" in log, log[-2000:]
        assert log.index("COMMAND got SIGTERM") < log.index("sending SIGTERM to ray start"), log[-2000:]
        eq(launched(c), 1, "launch command runs")
        c.stop()
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_sigterm_during_the_barrier, test_sigterm_while_the_command_runs)
