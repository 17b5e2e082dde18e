#!/usr/bin/python3
"""The head's join barrier on the real cluster and the real Ray, with a pod the scheduler does
not place (a scheduling gate: its node still booting, or never coming).

- A worker that never starts, RAYLAUNCH_JOIN_TIMEOUT=30s: the head gives up, exit 75; its
  termination message (`kubectl describe pod`) names the missing pod and how many joined; the
  program never ran; Ray was stopped without force; the kubelet starts the head again
  (restartPolicy Always).
- A quorum (RAYLAUNCH_MIN_NODES=2, RAYLAUNCH_QUORUM_GRACE=5s) of 3 pods with training-2 held: the
  program starts with 2 after the grace, told so and seeing 2 nodes; /metrics says 2 present of 3
  expected; training-2, released, still joins Ray under the running program.
- The head's GCS stops answering for 5 s while the barrier waits (its gcs_server SIGSTOPped from
  the node, then SIGCONT: a process frozen by a long pause or a swap storm; the kernel accepts
  connections but nothing answers): the barrier says so, carries on when it is back, and
  completes when the last worker joins; the head's readiness fails during the stall, its
  liveness does not (no restart).
"""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import (alive_names, assert_clean_end, hostnames, killed_by_probe, launched,  # noqa: E402
                               program_lines, raylaunch_run, survive, wait_exit, wait_log)
from kubetest.testing import eq, main  # noqa: E402

# Counted from the barrier's start: long enough for the head's own raylet to register on a
# loaded 2-core machine (~5-20 s).
JOIN_TIMEOUT = "30s"
STALL_S = 5  # longer than the barrier's longest back-off (2 s): it must notice


def test_a_worker_that_never_starts_ends_the_barrier_with_75():
    with raylaunch_run(replicas=2, env={"RAYLAUNCH_JOIN_TIMEOUT": JOIN_TIMEOUT}, gated=True) as k:
        k.start(hold=["training-1"])
        wait_log(k, "training-0", "1/2 nodes alive; missing: training-1", 120)
        run = wait_exit(k, "training-0", 0, 120)
        want = f"join timed out after {JOIN_TIMEOUT}: 1/2 nodes alive; missing: training-1"
        assert_clean_end(run, "training-0", 75, want)
        eq(run.message.strip(), want, "the head's termination message")
        assert f"exiting 75: {want}" in run.text(), run.text()[-2000:]
        eq(launched(k), 0, "program starts")
        k.wait_for(lambda: k.pod("training-0").restart_count >= 1, 60, "the head restarted by the kubelet")


def test_two_of_three_start_after_the_grace_and_the_third_joins_later():
    env = {"RAYLAUNCH_MIN_NODES": "2", "RAYLAUNCH_QUORUM_GRACE": "5s"}
    with raylaunch_run(replicas=3, env=env, launch=survive("--wait"), gated=True) as k:
        k.start(hold=["training-2"])
        wait_log(k, "training-0", "2/3 nodes alive: a quorum (--min-nodes 2)", 300)
        wait_log(k, "training-0", "SURVIVE started on training-0: restart 0, 2 nodes present", 60)
        assert "a quorum (--min-nodes 2) after its 5s grace" in k.pod("training-0").log_text()
        wait_log(k, "training-0", "SURVIVE ray.init() connected: 2 ALIVE nodes: training-0 training-1", 120)
        status, metrics = k.http_get("training-0", 8081, "/metrics")
        assert status == 200 and "raylaunch_nodes_present 2\n" in metrics and \
            "raylaunch_nodes_expected 3\n" in metrics, metrics
        k.release("training-2")
        k.wait_for(lambda: alive_names(k) == ["training-0", "training-1", "training-2"], 240,
                   "training-2 ALIVE in the head's GCS", period=3)
        eq(k.pod("training-0").log_text().count("SURVIVE started"), 1, "the program runs once")


def test_the_barrier_survives_a_stalled_gcs():
    with raylaunch_run(replicas=2, gated=True) as k:
        k.start(hold=["training-1"])
        wait_log(k, "training-0", "1/2 nodes alive; missing: training-1", 300)
        stalled_at = time.monotonic()
        k.kill_in_pod("training-0", "gcs_server", signal.SIGSTOP)
        try:
            wait_log(k, "training-0", "GCS at 127.0.0.1:6379: not answering", 30)
            # The head's readiness (its GCS answers) fails while it is stalled.
            k.wait_for(lambda: k.http_get("training-0", 8081, "/readyz")[0] == 503, 20, "/readyz 503 in the stall")
            time.sleep(max(0.0, STALL_S - (time.monotonic() - stalled_at)))
        finally:
            k.kill_in_pod("training-0", "gcs_server", signal.SIGCONT)
        k.wait_for(lambda: k.http_get("training-0", 8081, "/readyz")[0] == 200, 60, "the head's GCS to answer again")
        eq(launched(k), 0, "program starts before the last worker")
        k.release("training-1")
        wait_log(k, "training-0", "staying up (--on-success stay)", 300)
        head = k.pod("training-0").runs[0]
        eq(program_lines(head, "ray.init() connected"),
           ["ray.init() connected: 2 ALIVE nodes: training-0 training-1"], "what ray.init() saw")
        eq(hostnames(head), ["training-0", "training-1"], "hostnames of the pinned tasks")
        eq([p.restart_count for p in k.pods], [0, 0], "restarts")
        eq(killed_by_probe(k, "training-0"), [], "the head killed by a probe")
        eq(launched(k), 1, "program starts")


main(test_a_worker_that_never_starts_ends_the_barrier_with_75,
     test_two_of_three_start_after_the_grace_and_the_third_joins_later,
     test_the_barrier_survives_a_stalled_gcs)
