#!/usr/bin/python3
"""A worker notices in seconds what ended its cluster, on the real cluster and the real Ray.

1. Its own node DEAD: training-1's raylet freezes (SIGSTOP from the node: a hung process). The
   head's GCS health checks give up on it and mark it DEAD; `ray start --block` sees nothing
   wrong (its raylet process still exists), so without the watch the pod would stay Running and
   never Ready. Its raylaunch reads its own row DEAD and ends the container: 69, the reason from
   the GCS in the termination message. The kubelet restarts it; it joins again.
2. The head replaced in place: the head's container killed from the node and restarted by the
   kubelet (no GCS fault tolerance: a new Ray cluster, an empty node table). The worker's raylet
   would give up on the old GCS only after gcs_rpc_server_reconnect_timeout_s (60 s by default);
   the watch sees the new cluster id at its next look and ends the container at once: 69, "is a
   new cluster". It restarts and joins the new cluster, where the program runs again.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import (FAST_HEALTH, assert_clean_end, nodes, raylaunch_run, survive,  # noqa: E402
                               wait_exit, wait_log)
from kubetest.testing import eq, main  # noqa: E402


def test_a_frozen_raylet_declared_dead_ends_its_pod():
    with raylaunch_run(replicas=2, env=FAST_HEALTH, launch=survive("--wait")) as k:
        k.start()
        wait_log(k, "training-0", "SURVIVE running until SIGTERM", 300)
        wait_log(k, "training-1", "watching the head: training-1 is node", 60)
        k.kill_in_pod("training-1", "raylet", signal.SIGSTOP)
        run = wait_exit(k, "training-1", 0, 120)
        assert_clean_end(run, "training-1", 69, "training-1 (node ", ray_outlived=True)
        assert "is DEAD in the head's GCS" in run.message and "UNEXPECTED_TERMINATION" in run.message, run.message
        # The kubelet restarts it, and its new node is ALIVE beside the DEAD one.
        k.wait_for(lambda: (p := k.pod("training-1")).restart_count == 1 and p.running, 60, "training-1 restarted")
        k.wait_for(lambda: sorted(r[0] for r in nodes(k) if r[1] == "training-1") == ["ALIVE", "DEAD"],
                   180, "training-1's new node ALIVE", period=3)


def test_a_head_restarted_in_place_ends_its_workers_at_once():
    with raylaunch_run(replicas=2, launch=survive("--wait")) as k:
        k.start()
        wait_log(k, "training-0", "SURVIVE running until SIGTERM", 300)
        wait_log(k, "training-1", "watching the head: training-1 is node", 60)
        k.kill_container("training-0", signal.SIGKILL)  # restarted in place: a new Ray cluster
        run = wait_exit(k, "training-1", 0, 120)
        assert_clean_end(run, "training-1", 69, "the head's GCS at training-0.", ray_outlived=True)
        assert "is a new cluster" in run.message, run.message
        k.wait_for(lambda: k.pod("training-0").restart_count == 1, 60, "the head's container restarted")
        # The worker joins the new cluster; the program runs there with both nodes.
        k.wait_for(lambda: "SURVIVE ray.init() connected: 2 ALIVE nodes" in k.pod("training-0").log_text(1),
                   300, "the program on the new cluster with both nodes")
        eq(k.pod("training-1").restart_count, 1, "the worker's container restarts")


main(test_a_frozen_raylet_declared_dead_ends_its_pod, test_a_head_restarted_in_place_ends_its_workers_at_once)
