#!/usr/bin/python3
"""Scenario 3 on the real Ray: the workers start 10 s before the head (the head's node is
still being provisioned) and the head's DNS record appears only after the head pod runs
(NXDOMAIN until then, as with a slow endpoint update). The workers keep waiting, saying what
they wait for, start no Ray and are not restarted by their probes; they join once the name
resolves; the program runs once, sees the 3 nodes and runs a task in each pod. The 10 s are
real seconds: raylaunch's own retry pacing is not scaled."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import realray  # noqa: E402
from harness.scenario import launched, lines, raylaunch_cluster, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402

HEAD_NAME = "training-0.training.default.svc.cluster.local"
WORKERS_FIRST_S = 10
WORKERS = ("training-1", "training-2")


def test_workers_first_and_a_late_head_record():
    with raylaunch_cluster("p4de", replicas=3) as c:
        c.dns.withhold("training-0")  # NXDOMAIN for the head until published
        c.start(hold=["training-0"])  # the head is not scheduled yet (no IP, no record)
        for w in WORKERS:
            wait_log(c, w, f"waiting for the head GCS at {HEAD_NAME}:6379", 60)
        first = min(c.pod(w).current.started_at for w in WORKERS)
        c.wait_for(lambda: c.loop.now() - first >= WORKERS_FIRST_S, WORKERS_FIRST_S + 5, f"{WORKERS_FIRST_S} s of waiting workers")
        for w in WORKERS:
            run = c.pod(w).current
            assert lines(run, f"head GCS at {HEAD_NAME}:6379: DNS stage failing"), \
                f"{w} does not say it cannot resolve the head:\n{run.text()}"
            assert "started ray start" not in run.text(), f"{w} started Ray before its head answered"
            eq(realray.ray_processes(c, w), [], f"{w}: Ray processes while waiting")
            eq(c.pod(w).restart_count, 0, f"{w}: restarts while waiting for the head")
            assert c.pod(w).running, c.pod(w)

        c.release("training-0")
        c.wait_for(lambda: c.pod("training-0").running, 60, "head started")
        wait_log(c, "training-0", "1/3 nodes alive; missing: training-1, training-2", 120)
        eq(c.dns.resolve(HEAD_NAME)[0], "NXDOMAIN", "the head's record, not yet published")
        c.dns.publish("training-0")  # its record appears after the pod
        wait_log(c, "training-0", "staying up (--on-success stay)", 240)
        head = c.pod("training-0").current
        eq(realray.program_lines(head, "ray.init() connected"),
           ["ray.init() connected: 3 ALIVE nodes: training-0 training-1 training-2"], "what ray.init() saw")
        eq(realray.hostnames(head), ["training-0", "training-1", "training-2"], "hostnames of the pinned tasks")
        for w in WORKERS:
            wait_log(c, w, f"head GCS at {HEAD_NAME}:6379 answered", 5)
        eq([p.restart_count for p in c.pods], [0, 0, 0], "restarts")
        eq([e for e in c.events if e.reason == "Killing"], [], "pods killed by a probe")
        eq(launched(c), 1, "program runs")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_workers_first_and_a_late_head_record)
