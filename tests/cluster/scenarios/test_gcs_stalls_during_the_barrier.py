#!/usr/bin/python3
"""The head's GCS stops answering for 5 s while the join barrier waits for the last worker, on
the real Ray: its gcs_server is stopped (SIGSTOP, then SIGCONT: a process frozen by the node,
a long GC pause or swap storm; connections are accepted by the kernel but nothing answers).
The barrier says the GCS is not answering, carries on when it is back, and completes when the
last worker joins: the program runs once and sees every node ALIVE; no pod is restarted (the
head's liveness tolerates the outage).

A GCS that restarts and keeps its node table needs GCS fault tolerance (external Redis): that
is tested on the real Ray and a real redis-server by the GCS fault-tolerance suite, not here."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import realray  # noqa: E402
from harness.scenario import kill_in_pod, launched, raylaunch_cluster, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402

STALL_S = 5  # longer than the barrier's longest back-off (2 s): it must notice


def test_the_barrier_survives_a_stalled_gcs():
    with raylaunch_cluster("p4de", replicas=2) as c:
        c.start(hold=["training-1"])
        wait_log(c, "training-0", "1/2 nodes alive; missing: training-1", 240)
        head = c.pod("training-0")
        stalled_at = c.loop.now()
        kill_in_pod(c, "training-0", "gcs_server", signal.SIGSTOP)
        try:
            wait_log(c, "training-0", "GCS at 127.0.0.1:6379: not answering", 30)
            c.wait_for(lambda: c.loop.now() - stalled_at >= STALL_S, STALL_S + 5, f"{STALL_S} s of a stalled GCS")
        finally:
            kill_in_pod(c, "training-0", "gcs_server", signal.SIGCONT)

        # Back: the head's readiness (its GCS answers) fails during the stall, then passes.
        # (The barrier's own log repeats an unchanged progress line only every 10 s.)
        def back():
            rs = [r for r in c.probes_of(head, "readiness") if r.t >= stalled_at]
            down = next((r.t for r in rs if not r.ok), None)
            return down is not None and any(r.ok and r.t > down for r in rs)
        c.wait_for(back, 60, "the head's GCS to answer again")
        eq(launched(c), 0, "program runs before the last worker")
        c.release("training-1")
        wait_log(c, "training-0", "staying up (--on-success stay)", 240)
        eq(realray.program_lines(head.current, "ray.init() connected"),
           ["ray.init() connected: 2 ALIVE nodes: training-0 training-1"], "what ray.init() saw")
        eq(realray.hostnames(head.current), ["training-0", "training-1"], "hostnames of the pinned tasks")
        eq([p.restart_count for p in c.pods], [0, 0], "restarts")
        eq([e for e in c.events if e.reason == "Killing"], [], "pods killed by a probe")
        eq(launched(c), 1, "program runs")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_the_barrier_survives_a_stalled_gcs)
