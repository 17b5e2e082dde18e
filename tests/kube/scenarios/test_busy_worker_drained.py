#!/usr/bin/python3
"""A worker deleted while a task runs on it (a spot interruption, a node drain, a scale-down:
the kubelet's SIGTERM) is drained before its Ray stops, on the real cluster and the real Ray.

training-1 runs a task of the head's program when `kubectl delete pod training-1` comes. Its
raylaunch asks the head's GCS to drain its own node (DrainNode, reason PREEMPTION, deadline =
its term grace), says so, turns /readyz unready with the reason, waits until the deadline (the
task still runs), then stops Ray and exits 143, inside the pod's grace. The head's GCS records
the node DEAD as AUTOSCALER_DRAIN_PREEMPTED with raylaunch's message — a preemption, not a crash
— and the program's task fails with the node gone. The StatefulSet's new training-1 joins, runs
nothing, and is deleted again: idle, its node drains and it exits at once, long before the
deadline.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import assert_clean_end, nodes, raylaunch_run, survive, wait_log  # noqa: E402
from kubetest.testing import eq, main  # noqa: E402

WINDOW_S = 8  # RAYLAUNCH_TERM_GRACE: the drain's window on a worker
MESSAGE = "raylaunch: pod training-1 received SIGTERM"


def rows_of(k, name):
    return [r for r in nodes(k) if r[1] == name]


def exit_of(k, pod, timeout):
    return k.wait_for(lambda: (r := [p for p in k.pods_named("training-1") if p.uid == pod.uid][0].runs)
                      and r[0].ended and r[0], timeout, f"training-1 ({pod.uid[:8]})'s exit")


def test_a_busy_worker_is_drained_then_an_idle_one_at_once():
    # Ray's own drain on SIGTERM is what raylaunch turns off on workers (its plan's
    # RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S=0); the scenarios' default pod env would keep it.
    env = {"RAYLAUNCH_TERM_GRACE": f"{WINDOW_S}s", "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": None}
    with raylaunch_run(replicas=2, env=env,
                       launch=survive("--pin", "training-1", "--on-failure", "wait")) as k:
        k.start()
        # The StatefulSet controller creates training-1 after training-0: wait for the watch to see it.
        old = k.wait_for(lambda: "training-1" in k.pod_names() and k.pod("training-1"), 120, "training-1 created")
        wait_log(k, "training-0", "SURVIVE task on training-1 submitted", 300)
        k.wait_for(lambda: k.exec("training-1", ["test", "-e", "/tmp/survive-task-running"])[0] == 0, 120,
                   "the task running in training-1", period=2)
        eq(k.http_get("training-1", 8081, "/readyz")[0], 200, "training-1's readiness before")

        deleted = time.monotonic()
        k.delete_pod("training-1")
        k.wait_for(lambda: "draining node" in old.log_text(), 30, "training-1 draining")
        # Unready with the reason as soon as it drains, while Ray still runs there.
        status, text = k.wait_for(lambda: (r := k.http_get("training-1", 8081, "/readyz"))[0] == 503 and r, 10,
                                  "/readyz unready")
        assert "draining" in text and "SIGTERM" in text, text
        run = exit_of(k, old, WINDOW_S + 60)
        took = time.monotonic() - deleted
        assert_clean_end(run, "training-1", 143, "stopped by SIGTERM while Ray ran; drained until the "
                         f"{WINDOW_S}s deadline", ray_outlived=True)
        assert took >= WINDOW_S, f"Ray stopped {took:.1f}s after SIGTERM, before the {WINDOW_S}s deadline"
        assert "sending SIGTERM to ray start" in run.text(), run.text()[-3000:]

        # The GCS's record: a preemption with raylaunch's message, not a crash.
        dead = k.wait_for(lambda: [r for r in rows_of(k, "training-1") if r[0] == "DEAD"], 60, "training-1 DEAD",
                          period=3)
        eq(len(dead), 1, "DEAD rows of training-1")
        assert dead[0][4].startswith("AUTOSCALER_DRAIN_PREEMPTED " + MESSAGE), dead[0]
        wait_log(k, "training-0", "SURVIVE task on training-1 failed", 120)

        # The recreated pod joins and runs nothing: deleted, its idle node drains at once.
        new = k.wait_for(lambda: (p := k.pod("training-1")).uid != old.uid and p.running and p, 180,
                         "training-1 recreated")
        k.wait_for(lambda: len([r for r in rows_of(k, "training-1") if r[0] == "ALIVE"]) == 1, 180,
                   "the new training-1 ALIVE", period=3)
        wait_log(k, "training-1", "watching the head: training-1 is node", 60)
        # ...and its `ray start` past its start-up (deleted before that, ray start waits up to
        # 30 s, deaf to SIGTERM, for its node: the unit tests cover that race).
        wait_log(k, "training-1", "This command will now block forever", 60)
        deleted = time.monotonic()
        k.delete_pod("training-1")
        run = exit_of(k, new, WINDOW_S + 60)
        took = time.monotonic() - deleted
        assert_clean_end(run, "training-1", 143, "stopped by SIGTERM while Ray ran; drained: the node was idle",
                         ray_outlived=True)
        assert took < WINDOW_S, f"an idle node took {took:.1f}s to drain"
        dead = k.wait_for(lambda: len([r for r in rows_of(k, "training-1") if r[0] == "DEAD"]) == 2
                          and rows_of(k, "training-1"), 60, "both DEAD", period=3)
        assert all(r[4].startswith("AUTOSCALER_DRAIN_PREEMPTED " + MESSAGE) for r in dead), dead


main(test_a_busy_worker_is_drained_then_an_idle_one_at_once)
