#!/usr/bin/python3
"""In-place restarts of the launch command on the head (RAYLAUNCH_RESTARTS=2), on the real
cluster and the real Ray.

The program runs a task pinned to training-1. training-1's container is killed from the node
(an OOM kill of its PID 1); the task fails with its node and the program exits 1. The head's
container does not end: Ray stays up, the command waits for the join barrier again — the kubelet
restarts training-1's container in the same pod and its new raylet registers under the same
name, counted once — and runs again with RAYLAUNCH_RESTART_COUNT=1, this time to success. The
head's container never restarted; its log, /metrics and, once `kubectl delete pod` ends it, its
termination message name the restart.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import (FAST_HEALTH, assert_clean_end, first_exit, raylaunch_run,  # noqa: E402
                               survive, wait_log)
from kubetest.testing import eq, main  # noqa: E402


def test_a_failed_command_runs_again_once_the_worker_is_back():
    env = dict(FAST_HEALTH, RAYLAUNCH_RESTARTS="2")
    with raylaunch_run(replicas=2, env=env, launch=survive("--pin", "training-1", "--restarted-exit", "0")) as k:
        k.start()
        wait_log(k, "training-0", "SURVIVE task on training-1 submitted", 300)
        k.wait_for(lambda: k.exec("training-1", ["test", "-e", "/tmp/survive-task-running"])[0] == 0, 120,
                   "the pinned task running in training-1", period=2)
        k.kill_container("training-1", signal.SIGKILL)
        wait_log(k, "training-0", "SURVIVE task on training-1 failed", 120)
        wait_log(k, "training-0", "running it again in place (restart 1, at most 2 within 1h)", 60)
        wait_log(k, "training-0", "SURVIVE started on training-0: restart 1, 2 nodes present", 300)
        wait_log(k, "training-0", "staying up (--on-success stay)", 240)
        eq(k.pod("training-0").restart_count, 0, "the head's container restarts")
        eq(k.pod("training-1").restart_count, 1, "the worker's container restarts")
        status, metrics = k.http_get("training-0", 8081, "/metrics")
        assert status == 200 and "raylaunch_command_restarts_total 1\n" in metrics, (status, metrics)
        text = k.pod("training-0").log_text()
        eq(text.count("SURVIVE started on training-0"), 2, "program starts")
        failed_at = text.index("SURVIVE exits 1")
        assert failed_at < text.index("2/2 nodes alive", failed_at), "the rerun waited for the barrier"

        k.delete_pod("training-0")
        run = first_exit(k, "training-0", 120)
        assert_clean_end(run, "training-0", 0, "the command had succeeded; stopped by SIGTERM while staying up; "
                         "the command ran again in place 1 time (RAYLAUNCH_RESTARTS)")


main(test_a_failed_command_runs_again_once_the_worker_is_back)
