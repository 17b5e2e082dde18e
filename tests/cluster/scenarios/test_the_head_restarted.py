#!/usr/bin/python3
"""The head pod restarted on the real Ray (`kubectl delete pod training-0` while the cluster
stays up after a successful run; the StatefulSet recreates it with a new IP, its DNS record
follows). The old head stops cleanly (0: the program had succeeded). The new head starts a new
Ray cluster and waits in its barrier. Each worker's head watch sees the new cluster id as soon as
the new GCS answers — before its raylet would give up on the old GCS
(RAY_gcs_rpc_server_reconnect_timeout_s, Ray's default 60 s, left as it is) — and its raylaunch
exits 69 saying why; the kubelet restarts it, it waits for the new head and joins; the program
runs again on the new cluster and sees the 3 nodes."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import realray  # noqa: E402
from harness.scenario import (assert_clean_end, launched, raylaunch_cluster, wait_exit,  # noqa: E402
                              wait_log)
from harness.testing import eq, main  # noqa: E402

WORKERS = ("training-1", "training-2")


def test_workers_follow_a_restarted_head():
    with raylaunch_cluster("p4de", replicas=3) as c:
        c.start()
        wait_log(c, "training-0", "staying up (--on-success stay)", 240)
        old = c.pod("training-0")
        old_ip = old.ip
        c.delete_pod("training-0")  # recreated by the StatefulSet
        # `old`, not c.pod("training-0"): that is the recreated pod once it exists.
        run = c.wait_for(lambda: old.runs[0].message is not None and old.runs[0], 90, "the old head's exit")
        assert_clean_end(c, run, "training-0", 0, "the command had succeeded; stopped by SIGTERM while staying up")

        new = c.wait_for(lambda: next((p for p in c.pods if p.hostname == "training-0" and p is not old
                                       and p.running), None), 60, "the head recreated")
        assert new.ip != old_ip, (new.ip, old_ip)
        for w in WORKERS:
            exited = wait_exit(c, w, 0, 180)
            assert_clean_end(c, exited, w, 69, "the head's GCS at training-0.", ray_outlived=True)
            assert "is a new cluster" in exited.message, exited.message
        c.wait_for(lambda: launched(c) == 2, 300, "the program on the new head")
        wait_log(c, "training-0", "staying up (--on-success stay)", 240)
        head = new.current
        eq(realray.program_lines(head, "ray.init() connected"),
           ["ray.init() connected: 3 ALIVE nodes: training-0 training-1 training-2"], "what ray.init() saw")
        eq(realray.hostnames(head), ["training-0", "training-1", "training-2"], "hostnames of the pinned tasks")
        eq([c.pod(w).restart_count for w in WORKERS], [1, 1], "worker restarts")
        eq(new.restart_count, 0, "the new head's restarts")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_workers_follow_a_restarted_head)
