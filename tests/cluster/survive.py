"""What benchmarks/survive_bench.py shares with the survival scenarios (now on the real cluster:
tests/kube/scenarios/test_busy_worker_drained.py, test_head_watch.py, test_command_restarts.py,
test_join_barrier.py, test_version_mismatch.py): their program and the Ray health-check timing
that makes a silent raylet DEAD within seconds.

Imported after `sys.path.insert(0, tests/cluster)`. Skips (125) while the real-Ray cluster harness
(harness/realray.py, branch realray) is not there yet."""
import os
import sys

try:
    from harness import realray  # noqa: F401
except ImportError:  # until the real-Ray cluster harness (branch realray) is merged: remove then
    print(f"SKIP: {os.path.basename(sys.argv[0])}: needs the real-Ray cluster harness")
    sys.exit(125)

# The launch command: the survival program, with the venv's python as a user's image has it.
PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "survive_program.py")


def program(*args):
    return ["python", PROGRAM, *args]


# The head's GCS declares a silent raylet DEAD after 3 failed checks 1 s apart (Ray's defaults: 5
# x 3 s after 5 s, each allowed 10 s), so a frozen or killed raylet is DEAD within seconds.
FAST_HEALTH = {"RAY_health_check_initial_delay_ms": "1000", "RAY_health_check_period_ms": "1000",
               "RAY_health_check_timeout_ms": "1000", "RAY_health_check_failure_threshold": "3"}
