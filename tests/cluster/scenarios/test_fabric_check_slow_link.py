#!/usr/bin/python3
"""A slowed pod is named by the gang fabric check and the run ends 78 under strict checks
(issue 27 item 4), on the real Ray with Debian's real fi_pingpong (provider tcp): training-1's
interface is rate-limited inside its network namespace (tc tbf, 8 Mbit/s: this kernel has no
sch_netem), so both of its links, 0 → 1 (its replies) and 1 → 2 (its pings), fall below the
floor. The head names training-1 as the likely cause, with the fix, and exits 78 without
starting the program."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import survive  # noqa: E402,F401  (skips without the real-Ray harness)
from harness.scenario import assert_clean_end, lines, raylaunch_cluster, wait_exit  # noqa: E402
from harness.testing import main  # noqa: E402
from scenarios.test_fabric_check import FABRIC_ENV, require_pingpong  # noqa: E402


def rate_limit(c, name):
    """tc tbf on the pod's eth0, as soon as its network namespace exists (before the barrier)."""
    ns = c.wait_for(lambda: c.pod(name).netns, 120, f"{name}'s network namespace")
    subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "eth0", "root", "tbf",
                    "rate", "8mbit", "burst", "64kb", "latency", "400ms"], check=True)


def test_a_slowed_pod_is_named_and_the_run_ends_78():
    require_pingpong()
    # A slowed link moves its ~20 MiB at 1 MB/s: the bound leaves it time to be measured slow.
    env = dict(FABRIC_ENV, RAYLAUNCH_FABRIC_CHECK_TIMEOUT="60s")
    with raylaunch_cluster("p4de", replicas=3, env=env) as c:
        c.start()
        rate_limit(c, "training-1")
        run = wait_exit(c, "training-0", 0, 300)
        assert_clean_end(c, run, "training-0", 78,
                         "node check fabric failed: training-1 is in both of its fabric links below the floor")
        text = run.text()
        for link in ("training-0 → training-1", "training-1 → training-2"):
            row = [t for t in lines(run, link) if "BELOW FLOOR" in t]
            assert row, f"{link} not below the floor:\n{text[-3000:]}"
        healthy = [t for t in lines(run, "training-2 → training-0") if t.rstrip().endswith("ok")]
        assert healthy, text[-3000:]
        assert "kubectl cordon" in run.message, run.message
        assert "fabric link training-1 → training-2 carries" in text, text[-3000:]
        assert "PROGRAM started" not in text, text[-3000:]


if __name__ == "__main__":
    main(test_a_slowed_pod_is_named_and_the_run_ends_78)
