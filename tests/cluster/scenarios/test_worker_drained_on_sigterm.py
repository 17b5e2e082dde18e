#!/usr/bin/python3
"""A worker deleted while a task runs on it (a spot interruption, a node drain, a scale-down:
the kubelet's SIGTERM) is drained before its Ray stops (issue 19 item 1), on the real Ray.

training-1 runs a task of the head's program when its pod is deleted. Its raylaunch asks the
head's GCS to drain its own node (DrainNode, reason PREEMPTION, deadline = its term grace),
says so, turns /readyz unready with the reason, waits until the deadline (the task still
runs), then stops Ray and exits 143. The head's GCS records the node DEAD as
AUTOSCALER_DRAIN_PREEMPTED with raylaunch's message — a preemption, not a crash
(UNEXPECTED_TERMINATION) — and the program's task fails with the node gone. The recreated
training-1 joins, runs nothing, and is deleted again: idle, its raylet drains and exits at once,
long before the deadline.

Without the drain (before issue 19), Ray 2.60's `ray start` drained the node itself on SIGTERM
for up to 30 s, past raylaunch's 15 s stop grace: Ray was SIGKILLed and the node recorded as a
health-check failure."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from survive import program  # noqa: E402
from harness import realray  # noqa: E402
from harness.scenario import assert_clean_end, lines, raylaunch_cluster, wait_exit, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402

WINDOW_S = 8  # RAYLAUNCH_TERM_GRACE: the drain's window on a worker
MESSAGE = "raylaunch: pod training-1 received SIGTERM"


def row_of(c, name):
    rows = [r for r in realray.nodes(c, c.venv) if r[1] == name]
    return rows


def test_a_busy_worker_is_drained_then_an_idle_one_at_once():
    with raylaunch_cluster("p4de", replicas=2, env={"RAYLAUNCH_TERM_GRACE": f"{WINDOW_S}s"},
                           launch=program("--pin", "training-1", "--on-failure", "wait")) as c:
        # Ray's own drain on SIGTERM is what raylaunch turns off on workers (its plan's
        # RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S=0); the harness's image default would keep it.
        c.image_env.pop("RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S", None)
        c.start()
        old = c.pod("training-1")
        wait_log(c, "training-0", "SURVIVE task on training-1 submitted", 240)
        marker = c.path_in("training-1", "/tmp/survive-task-running")
        c.wait_for(lambda: os.path.exists(marker), 120, "the task running in training-1")
        ok, _, text = c.http_get("training-1", 8081, "/readyz")
        assert ok, text

        deleted = time.monotonic()
        c.delete_pod("training-1")
        wait_log(c, "training-1", "draining node", 30)
        # Unready with the reason as soon as it drains, while Ray still runs there.
        ok, _, text = c.wait_for(lambda: (lambda r: not r[0] and r)(c.http_get("training-1", 8081, "/readyz")), 10,
                                 "/readyz unready")
        assert "draining" in text and "SIGTERM" in text, text
        run = c.wait_for(lambda: old.runs[0].message is not None and old.runs[0], WINDOW_S + 60, "training-1's exit")
        took = time.monotonic() - deleted
        assert_clean_end(c, run, "training-1", 143, "stopped by SIGTERM while Ray ran; drained until the "
                         f"{WINDOW_S}s deadline", ray_outlived=True)
        assert took >= WINDOW_S, f"Ray stopped {took:.1f}s after SIGTERM, before the {WINDOW_S}s deadline"
        assert lines(run, "sending SIGTERM to ray start"), run.text()[-3000:]

        # The GCS's record: a preemption with raylaunch's message, not a crash.
        dead = c.wait_for(lambda: [r for r in row_of(c, "training-1") if r[0] == "DEAD"], 60, "training-1 DEAD")
        eq(len(dead), 1, "DEAD rows of training-1")
        assert dead[0][4].startswith("AUTOSCALER_DRAIN_PREEMPTED " + MESSAGE), dead[0]
        wait_log(c, "training-0", "SURVIVE task on training-1 failed", 120)

        # The recreated pod joins, runs nothing: deleted, its idle node drains at once.
        new = c.wait_for(lambda: next((p for p in c.pods if p.hostname == "training-1" and p is not old
                                       and p.running), None), 120, "training-1 recreated")
        c.wait_for(lambda: len([r for r in row_of(c, "training-1") if r[0] == "ALIVE"]) == 1, 180,
                   "the new training-1 ALIVE")
        wait_log(c, "training-1", "watching the head: training-1 is node", 60)
        # ...and its `ray start` past its start-up. Deleted before that, the node drains and its
        # raylet exits while ray start still waits (up to 30 s, deaf to SIGTERM) for its node to
        # be ALIVE: raylaunch then SIGKILLs it after a short grace, which the unit tests cover
        # (test_supervisor_survive.cpp); the soak under stress hit that start-up race here.
        wait_log(c, "training-1", "This command will now block forever", 60)
        deleted = time.monotonic()
        c.delete_pod("training-1")
        run = c.wait_for(lambda: new.runs[0].message is not None and new.runs[0], WINDOW_S + 60, "its exit")
        took = time.monotonic() - deleted
        assert_clean_end(c, run, "training-1", 143, "stopped by SIGTERM while Ray ran; drained: the node was idle",
                         ray_outlived=True)
        assert took < WINDOW_S, f"an idle node took {took:.1f}s to drain"
        dead = c.wait_for(lambda: len([r for r in row_of(c, "training-1") if r[0] == "DEAD"]) == 2
                          and row_of(c, "training-1"), 60, "both DEAD")
        assert all(r[4].startswith("AUTOSCALER_DRAIN_PREEMPTED " + MESSAGE) for r in dead), dead


if __name__ == "__main__":
    main(test_a_busy_worker_is_drained_then_an_idle_one_at_once)
