#!/usr/bin/python3
"""Scenario 5 of issue 12: the head's GCS restarts (down 3 s, its node table kept, as with GCS
fault tolerance) while the join barrier waits for the last worker. The barrier says the GCS
is not answering, carries on when it is back, and completes when the last worker joins: the
command runs once, with every node ALIVE, and no pod is restarted (the head's liveness
tolerates the outage)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.scenario import gcs_ctl, launched, raylaunch_cluster, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402

DOWN_MS = 3000  # longer than the barrier's longest back-off (2 s): it must notice


def test_the_barrier_survives_a_gcs_restart():
    with raylaunch_cluster("p4de", replicas=3) as c:
        c.start(hold=["training-2"])
        wait_log(c, "training-0", "2/3 nodes alive; missing: training-2", 60)
        head = c.pod("training-0")
        restart_at = c.loop.now()
        gcs_ctl(c, "restart", str(DOWN_MS))
        wait_log(c, "training-0", "GCS at 127.0.0.1:6379: not answering", 30)
        # Back: the head's readiness (its GCS answers) fails during the outage, then passes.
        # (The barrier's own log repeats an unchanged progress line only every 10 s.)
        def back():
            rs = [r for r in c.probes_of(head, "readiness") if r.t >= restart_at]
            down = next((r.t for r in rs if not r.ok), None)
            return down is not None and any(r.ok and r.t > down for r in rs)
        c.wait_for(back, 30, "the head's GCS to answer again")
        eq(launched(c), 0, "launch command runs before the last worker")
        c.release("training-2")
        c.wait_for(lambda: launched(c) == 1, 60, "the launch command")
        assert "LAUNCH on training-0: 3 alive" in head.log_text(), head.log_text()
        wait_log(c, "training-0", "3/3 nodes alive after", 10)
        eq([p.restart_count for p in c.pods], [0, 0, 0], "restarts")
        eq([e for e in c.events if e.reason == "Killing"], [], "pods killed by a probe")
        c.stop()
        eq(launched(c), 1, "launch command runs")
        eq(head.exit_codes, [0], "the head's exit (stay, then deleted)")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_the_barrier_survives_a_gcs_restart)
