#!/usr/bin/python3
"""In-place restarts on the head (issue 19 item 3), on the real Ray: RAYLAUNCH_RESTARTS=2.

The program runs a task pinned to training-1. training-1's container is killed (an OOM kill of
its PID 1); the task fails with the node, the program exits 1. The head does not exit: Ray
stays up, the command waits for the join barrier again — training-1's container restarts and
its new raylet registers under the same name, counted once — and runs again with
RAYLAUNCH_RESTART_COUNT=1, this time to success. The head's container never restarted; its
log, /metrics and its termination message (once it is deleted) name the restart."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from survive import FAST_HEALTH, program  # noqa: E402
from harness.scenario import assert_clean_end, raylaunch_cluster, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402



def test_a_failed_command_runs_again_once_the_worker_is_back():
    with raylaunch_cluster("p4de", replicas=2, image_env=FAST_HEALTH, env={"RAYLAUNCH_RESTARTS": "2"},
                           launch=program("--pin", "training-1", "--restarted-exit", "0")) as c:
        c.start()
        wait_log(c, "training-0", "SURVIVE task on training-1 submitted", 240)
        head, worker = c.pod("training-0"), c.pod("training-1")
        c.wait_for(lambda: os.path.exists(c.path_in("training-1", "/tmp/survive-task-running")), 120, "the task")
        c.kill("training-1", signal.SIGKILL)
        wait_log(c, "training-0", "SURVIVE task on training-1 failed", 120)
        wait_log(c, "training-0", "running it again in place (restart 1, at most 2 within 1h)", 60)
        wait_log(c, "training-0", "SURVIVE started on training-0: restart 1, 2 nodes present", 300)
        wait_log(c, "training-0", "staying up (--on-success stay)", 240)
        eq(head.restart_count, 0, "head container restarts")
        eq(worker.restart_count, 1, "worker container restarts")
        ok, _, metrics = c.http_get("training-0", 8081, "/metrics")
        assert ok and "raylaunch_command_restarts_total 1\n" in metrics, metrics
        text = head.current.text()
        assert text.count("SURVIVE started on training-0") == 2, text[-3000:]
        assert text.index("SURVIVE exits 1") < text.index("2/2 nodes alive", text.index("SURVIVE exits 1")), \
            "the rerun waited for the barrier"
        c.stop()
        assert_clean_end(c, head.runs[0], "training-0", 0, "the command had succeeded; stopped by SIGTERM while "
                         "staying up; the command ran again in place 1 time (RAYLAUNCH_RESTARTS)")


if __name__ == "__main__":
    main(test_a_failed_command_runs_again_once_the_worker_is_back)
