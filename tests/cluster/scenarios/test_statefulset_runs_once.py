#!/usr/bin/python3
"""Scenario 1 of issue 12: the StatefulSet overlay's 4 pods start together; the launch command
runs once all are ALIVE, exactly once, on the head; with the overlay's RAYLAUNCH_ON_SUCCESS
(stay) the head stays up with healthy probes and nothing reruns; deleting the StatefulSet ends
every pod cleanly. Skips until `raylaunch run` is in the build (written against its contract,
/work/notes/common.md, before it existed: the first run will tell)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.scenario import launched, raylaunch_cluster  # noqa: E402
from harness.testing import eq, main  # noqa: E402


def test_four_pods_run_the_command_once_and_the_head_stays():
    with raylaunch_cluster("p4de", replicas=4) as c:
        c.start()
        head = c.pod("training-0")
        c.wait_for(lambda: launched(c) == 1, 90, "the launch command")
        assert "LAUNCH on training-0: 4 alive" in head.log_text(), head.log_text()
        # stay: every pod ready, the head included, for several probe periods; no rerun.
        c.wait_for(lambda: len(c.pods) == 4 and all(p.ready for p in c.pods), 60, "all pods ready")
        checks = len(c.probes_of(head, "liveness"))
        c.wait_for(lambda: len(c.probes_of(head, "liveness")) >= checks + 5, 30, "5 more liveness probes")
        eq([p.restart_count for p in c.pods], [0, 0, 0, 0], "restarts")
        eq(launched(c), 1, "launch command runs")
        ready_at = next(e.t for e in c.events if e.pod == head.name and e.reason == "Ready")
        failed = [r for r in c.probes_of(head) if r.t >= ready_at and not r.ok]
        eq(failed, [], "the head's probes once it was ready")
        c.stop()
        eq(head.exit_codes, [0], "stay: SIGTERM after success is a clean exit")
        for p in c.all_pods[1:]:
            eq(p.exit_codes, [143], f"{p.name}: SIGTERM")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_four_pods_run_the_command_once_and_the_head_stays)
