#!/usr/bin/python3
"""`kubectl delete pod training-0` after a successful run, on the real cluster: the StatefulSet
controller recreates the head (new uid, new IP, the same DNS name once CoreDNS has its new
record). The old head stops cleanly (0: its command had succeeded). Each worker's head watch sees
the new cluster id as soon as the new GCS answers — seconds, not the 60 s its raylet would wait
for the old GCS (RAY_gcs_rpc_server_reconnect_timeout_s, left at Ray's default) — and ends its
container (69, saying why); the kubelet restarts it, it joins the new head, and the program runs
again there and sees the 3 nodes.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import (assert_clean_end, assert_program_saw, launched,  # noqa: E402
                               raylaunch_run, wait_exit, wait_log)
from kubetest.testing import eq, main  # noqa: E402

WORKERS = ("training-1", "training-2")


def test_workers_follow_a_recreated_head():
    with raylaunch_run() as k:
        k.start()
        wait_log(k, "training-0", "staying up (--on-success stay)", 300)
        old = k.pod("training-0")
        deleted = time.monotonic()
        k.delete_pod("training-0")
        run = k.wait_for(lambda: (r := k.pods_named("training-0")[0].runs) and r[0].ended and r[0], 90,
                         "the old head's exit")
        assert_clean_end(run, "training-0", 0, "the command had succeeded; stopped by SIGTERM while staying up")
        new = k.wait_for(lambda: (p := k.pod("training-0")).uid != old.uid and p.running and p, 120,
                         "the head recreated")
        assert new.ip != old.ip, (new.ip, old.ip)
        noticed = []
        for w in WORKERS:
            exited = wait_exit(k, w, 0, 180)
            noticed.append(time.monotonic() - deleted)
            eq(exited.exit_code, 69, f"{w}'s exit status")
            assert "is a new cluster" in (exited.message or ""), exited.message
        print(f"workers' containers ended {', '.join(f'{s:.1f}' for s in noticed)} s after the head's deletion")
        k.wait_for(lambda: launched(k) == 2, 300, "the program on the new head")
        wait_log(k, "training-0", "staying up (--on-success stay)", 240)
        head = k.pod("training-0").runs[0]
        assert_program_saw(head)
        eq([k.pod(w).restart_count for w in WORKERS], [1, 1], "worker restarts")


main(test_workers_follow_a_recreated_head)
