#!/usr/bin/python3
"""Scenario 3 of issue 12: the workers start 20 s before the head (the head's node is still
being provisioned) and the head's DNS record appears only after the head pod runs (NXDOMAIN
until then, as with a slow endpoint update). The workers keep waiting, saying what they wait
for, are not restarted by their probes, and join once the name resolves; the command runs once
with every node ALIVE. The 20 s are real seconds: raylaunch's own retry pacing is not scaled."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.scenario import launched, lines, raylaunch_cluster, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402

HEAD_NAME = "training-0.training.default.svc.cluster.local"
WORKERS_FIRST_S = 20


def test_workers_first_and_a_late_head_record():
    with raylaunch_cluster("p4de", replicas=3) as c:
        c.dns.withhold("training-0")  # NXDOMAIN for the head until published
        c.start(hold=["training-0"])  # the head is not scheduled yet (no IP, no record)
        for w in ("training-1", "training-2"):
            wait_log(c, w, f"waiting for the head GCS at {HEAD_NAME}:6379", 30)
        first = min(c.pod(w).current.started_at for w in ("training-1", "training-2"))
        c.wait_for(lambda: c.loop.now() - first >= WORKERS_FIRST_S, WORKERS_FIRST_S + 5, "20 s of waiting workers")
        for w in ("training-1", "training-2"):
            waiting = lines(c.pod(w).current, f"head GCS at {HEAD_NAME}:6379: DNS stage failing")
            assert waiting, f"{w} does not say it cannot resolve the head:\n{c.pod(w).log_text()}"
            eq(c.pod(w).restart_count, 0, f"{w}: restarts while waiting for the head")
            assert c.pod(w).running, c.pod(w)

        c.release("training-0")
        c.wait_for(lambda: c.pod("training-0").running, 30, "head started")
        wait_log(c, "training-0", "1/3 nodes alive; missing: training-1, training-2", 30)
        eq(c.dns.resolve(HEAD_NAME)[0], "NXDOMAIN", "the head's record, not yet published")
        c.dns.publish("training-0")  # its record appears after the pod
        c.wait_for(lambda: launched(c) == 1, 60, "the launch command")
        head = c.pod("training-0")
        assert "LAUNCH on training-0: 3 alive" in head.log_text(), head.log_text()
        for w in ("training-1", "training-2"):
            wait_log(c, w, f"head GCS at {HEAD_NAME}:6379 answered", 5)
        eq([p.restart_count for p in c.pods], [0, 0, 0], "restarts")
        killed = [e for e in c.events if e.reason == "Killing"]
        eq(killed, [], "pods killed by a probe")
        c.stop()
        eq(launched(c), 1, "launch command runs")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_workers_first_and_a_late_head_record)
