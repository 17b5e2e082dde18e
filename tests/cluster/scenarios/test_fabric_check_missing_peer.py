#!/usr/bin/python3
"""The gang fabric check ends within its bound when a pod cannot take part (issue 27 item 4),
on the real Ray with Debian's real fi_pingpong (provider tcp):
- training-2 has no fi_pingpong (RAYLAUNCH_FABRIC_PINGPONG names a path that is not there):
  it says so, the head names it and the fix, and under strict checks exits 78;
- training-2 never answers (its netns drops the check's port, as a security group without its
  self rule would): the head waits at most RAYLAUNCH_FABRIC_CHECK_TIMEOUT (10 s), names it,
  and under --checks warn starts the program anyway."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import survive  # noqa: E402,F401  (skips without the real-Ray harness)
from harness import realray  # noqa: E402
from harness.scenario import assert_clean_end, raylaunch_cluster, wait_exit, wait_log  # noqa: E402
from harness.testing import main  # noqa: E402
from scenarios.test_fabric_check import FABRIC_ENV, require_pingpong  # noqa: E402

BOUND = 10


def no_tool_on_training_2(pod):
    pod = realray.small_shm(pod)
    if pod["metadata"]["name"] == "training-2":
        pod["spec"]["containers"][0]["env"].append(
            {"name": "RAYLAUNCH_FABRIC_PINGPONG", "value": "/opt/none/fi_pingpong"})
    return pod


def test_a_pod_without_the_tool_is_named_and_the_run_ends_78():
    require_pingpong()
    env = dict(FABRIC_ENV, RAYLAUNCH_FABRIC_CHECK_TIMEOUT=f"{BOUND}s")
    with raylaunch_cluster("p4de", replicas=3, env=env, mutate_pod=no_tool_on_training_2) as c:
        c.start()
        run = wait_exit(c, "training-0", 0, 300)
        assert_clean_end(c, run, "training-0", 78, "node check fabric failed: fabric link training-1 → training-2: "
                                                   "training-2 could not serve the test: fi_pingpong")
        assert "/opt/none/fi_pingpong" in run.message, run.message
        wait_log(c, "training-2", "fabric check: fi_pingpong (--fabric-pingpong /opt/none/fi_pingpong)", 30)


def test_a_peer_that_never_answers_ends_within_the_bound():
    require_pingpong()
    env = dict(FABRIC_ENV, RAYLAUNCH_FABRIC_CHECK_TIMEOUT=f"{BOUND}s", RAYLAUNCH_CHECKS="warn")
    with raylaunch_cluster("p4de", replicas=3, env=env) as c:
        c.start()
        ns = c.wait_for(lambda: c.pod("training-2").netns, 120, "training-2's network namespace")
        subprocess.run(["ip", "netns", "exec", ns, "iptables", "-A", "INPUT", "-p", "tcp", "--dport", "47592",
                        "-j", "DROP"], check=True)
        wait_log(c, "training-0", "fabric check: 3 pods", 240)
        began = time.monotonic()
        wait_log(c, "training-0", "fabric link training-1 → training-2 failed: no answer from", BOUND + 20)
        waited = time.monotonic() - began
        assert waited < BOUND + 10, f"the check took {waited:.1f} s, its bound is {BOUND} s"
        wait_log(c, "training-0", "PROGRAM started on training-0", 120)  # --checks warn: it runs


if __name__ == "__main__":
    main(test_a_pod_without_the_tool_is_named_and_the_run_ends_78, test_a_peer_that_never_answers_ends_within_the_bound)
