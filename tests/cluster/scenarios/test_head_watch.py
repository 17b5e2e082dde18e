#!/usr/bin/python3
"""A worker notices in seconds what ended its cluster (issue 19 item 2), on the real Ray.

1. Its own node DEAD: training-1's raylet freezes (SIGSTOP: a hung process, an unresponsive
   node). The head's GCS health checks give up on it and mark it DEAD; `ray start --block` sees
   nothing wrong (its raylet process still exists), so before issue 19 the pod stayed Running and
   never Ready, forever (Ray issue 64349 shows the same after a head restart). Its raylaunch's
   watch reads its own row DEAD and ends the pod: 69, the reason from the GCS in the
   termination message. The kubelet restarts it; it joins again.
2. The head replaced: the head's container is killed and restarted (no GCS fault tolerance: a
   new Ray cluster, an empty node table). The worker's raylet would give up on the old GCS only
   after gcs_rpc_server_reconnect_timeout_s (60 s by default); the watch sees the new cluster id
   at its next look and ends the pod at once: 69, "is a new cluster". It restarts and joins the
   new cluster, where the program runs again."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from survive import FAST_HEALTH, program  # noqa: E402
from harness import realray  # noqa: E402
from harness.scenario import assert_clean_end, kill_in_pod, raylaunch_cluster, wait_exit, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402



def test_a_frozen_raylet_declared_dead_ends_its_pod():
    with raylaunch_cluster("p4de", replicas=2, image_env=FAST_HEALTH, launch=program("--wait")) as c:
        c.start()
        wait_log(c, "training-0", "SURVIVE running until SIGTERM", 240)
        wait_log(c, "training-1", "watching the head: training-1 is node", 60)
        worker = c.pod("training-1")
        kill_in_pod(c, "training-1", "raylet", signal.SIGSTOP)
        run = wait_exit(c, "training-1", 0, 120)
        assert_clean_end(c, run, "training-1", 69, "training-1 (node ", ray_outlived=True)
        assert "is DEAD in the head's GCS" in run.message and "UNEXPECTED_TERMINATION" in run.message, run.message
        # It comes back, and its new node is ALIVE beside the DEAD one.
        c.wait_for(lambda: worker.restart_count == 1 and worker.running, 60, "training-1 restarted")
        c.wait_for(lambda: sorted(r[0] for r in realray.nodes(c, c.venv) if r[1] == "training-1") == ["ALIVE", "DEAD"],
                   120, "training-1's new node ALIVE")


def test_a_replaced_head_ends_its_workers_at_once():
    with raylaunch_cluster("p4de", replicas=2, launch=program("--wait")) as c:
        c.start()
        wait_log(c, "training-0", "SURVIVE running until SIGTERM", 240)
        wait_log(c, "training-1", "watching the head: training-1 is node", 60)
        head, worker = c.pod("training-0"), c.pod("training-1")
        c.kill("training-0", signal.SIGKILL)  # the container restarts in place: a new Ray cluster
        run = wait_exit(c, "training-1", 0, 120)
        assert_clean_end(c, run, "training-1", 69, "the head's GCS at training-0.", ray_outlived=True)
        assert "is a new cluster" in run.message, run.message
        eq(head.restart_count, 1, "head restarts")
        # The worker joins the new cluster; the program runs there with both nodes.
        c.wait_for(lambda: len(head.runs) == 2 and "SURVIVE ray.init() connected: 2 ALIVE nodes" in head.runs[1].text(),
                   300, "the program on the new cluster with both nodes")
        eq(worker.restart_count, 1, "worker restarts")


if __name__ == "__main__":
    main(test_a_frozen_raylet_declared_dead_ends_its_pod, test_a_replaced_head_ends_its_workers_at_once)
