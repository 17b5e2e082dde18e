#!/usr/bin/python3
"""A spot interruption under a Ray Train run (issue 28 item 3), on the real Ray 2.60.0: the drain
raylaunch sends on a worker's SIGTERM reaches the training loop with its deadline, the loop saves a
checkpoint before the deadline, and Ray Train resumes the run from that checkpoint.

2 pods, 1 CPU each; train_program.py on the head: a DataParallelTrainer of 2 workers, one a pod
(STRICT_SPREAD), a plain Python loop that checkpoints only when `ray.train.get_preemption_info()`
is not None. training-1 is deleted while it trains: its raylaunch drains its node (DrainNode,
reason PREEMPTION, deadline = SIGTERM + RAYLAUNCH_TERM_GRACE). Ray Train's PreemptionWatcher sees
the GCS's draining node (polled every RAY_TRAIN_PREEMPTION_POLL_INTERVAL_S, 1 s here; 5 s by
default) and both ranks read a PreemptionInfo naming training-1's rank and raylaunch's deadline;
rank 0 saves a checkpoint. At the deadline Ray Train tears the worker group down itself and
restarts it once the recreated training-1 has joined; both ranks resume from the checkpoint of
the preemption. FailureConfig(max_failures=0): the restart can only be the preemption's (Ray
Train charges it to max_preemption_failures), any other failure would end the run.

Ray Train needs ray[train]'s dependencies in the venv: scripts/ray-venvs installs them for 2.60.0
(tests/ray-extras-2.60.0.txt)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import realray  # noqa: E402
from harness.scenario import assert_clean_end, raylaunch_cluster, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402

WINDOW_S = 20  # RAYLAUNCH_TERM_GRACE: the drain's deadline on a worker
PROGRAM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "train_program.py")
# Ray Train's own settings, read by its controller and watcher actors from the raylet's
# environment (the pod's): the watcher polls every second instead of 5 s, and the restarted
# worker group may wait for the recreated pod's node longer than Train's 60 s default
# (ray/train/v2/_internal/constants.py, Ray 2.60.0) on a loaded 2-core machine.
TRAIN_ENV = {"RAY_TRAIN_PREEMPTION_POLL_INTERVAL_S": "1", "RAY_TRAIN_WORKER_GROUP_START_TIMEOUT_S": "300"}


def events(storage, kind=None):
    path = os.path.join(storage, "events.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if kind is None or r["event"] == kind]


def require_ray_train():
    """Ray Train's imports in the current release's venv, or a failure that says how to get them."""
    venv = realray.current_venv()
    probe = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import ray.train"], capture_output=True,
                           text=True)
    if probe.returncode != 0:
        raise AssertionError(f"Ray Train cannot be imported in {venv} (run scripts/ray-venvs: it installs "
                             f"tests/ray-extras-<release>.txt): {probe.stderr.strip().splitlines()[-1:]}")


def test_the_training_loop_checkpoints_before_the_deadline_and_resumes():
    require_ray_train()
    env = {"RAYLAUNCH_TERM_GRACE": f"{WINDOW_S}s", **TRAIN_ENV}
    # Ray Train's storage_path, which every pod must see (a shared volume in a real cluster): the
    # pods see the host's /var.
    storage = tempfile.mkdtemp(prefix="raylaunch-train-", dir="/var/tmp")
    os.chmod(storage, 0o777)
    try:
        check_the_run(storage, env)
    finally:
        shutil.rmtree(storage, ignore_errors=True)


def check_the_run(storage, env):
    with raylaunch_cluster("p4de", replicas=2, env=env, launch=["python", PROGRAM, storage]) as c:
        # Ray's own drain on SIGTERM is what raylaunch turns off on workers (its plan's
        # RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S=0); the harness's image default would keep it.
        c.image_env.pop("RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S", None)
        c.start()
        old = c.pod("training-1")
        started = c.wait_for(lambda: len(events(storage, "started")) == 2 and events(storage, "started"), 300,
                             "both Ray Train workers started")
        eq(sorted(r["host"] for r in started), ["training-0", "training-1"], "the pods of the 2 ranks")
        rank_there = next(r["rank"] for r in started if r["host"] == "training-1")
        time.sleep(2)  # a few steps

        deleted_ms = int(time.time() * 1000)
        c.delete_pod("training-1")
        wait_log(c, "training-1", "draining node", 30)

        # Both ranks learn of it, with raylaunch's deadline, well before it.
        preempted = c.wait_for(lambda: len(events(storage, "preempted")) == 2 and events(storage, "preempted"),
                               WINDOW_S, "both ranks to see the preemption")
        for r in preempted:
            eq(r["ranks"], [rank_there], f"the preempted ranks rank {r['rank']} was told")
            assert r["deadline_ms"] is not None, r
            # The drain's deadline is raylaunch's: its SIGTERM + the term grace (the drain is
            # sent within a second or two of the SIGTERM).
            late = r["deadline_ms"] - (deleted_ms + WINDOW_S * 1000)
            assert -500 <= late <= 5000, f"deadline {late} ms after SIGTERM + {WINDOW_S}s: {r}"
            assert r["at_ms"] < r["deadline_ms"], r
        saved = c.wait_for(lambda: events(storage, "checkpointed"), WINDOW_S, "the checkpoint")
        eq(len(saved), 1, "checkpoints saved")
        assert saved[0]["at_ms"] < preempted[0]["deadline_ms"], (saved, preempted)
        print(f"saw the drain {min(r['at_ms'] for r in preempted) - deleted_ms} ms after SIGTERM; checkpoint "
              f"saved {preempted[0]['deadline_ms'] - saved[0]['at_ms']} ms before the deadline")

        # The old training-1 ends as a drained worker: 143, drained, nothing forced.
        run = c.wait_for(lambda: old.runs[0].message is not None and old.runs[0], WINDOW_S + 60, "training-1's exit")
        assert_clean_end(c, run, "training-1", 143, "stopped by SIGTERM while Ray ran; drained", ray_outlived=True)

        # Ray Train restarts the worker group on the recreated training-1; both ranks resume from
        # the checkpoint of the preemption, and the run finishes.
        resumed = c.wait_for(lambda: len(events(storage, "resumed")) == 2 and events(storage, "resumed"), 400,
                             "both ranks resumed")
        eq([r["from_step"] for r in resumed], [saved[0]["step"]] * 2, "the step both ranks resumed from")
        eq(sorted(r["host"] for r in resumed), ["training-0", "training-1"], "the pods of the resumed ranks")
        c.wait_for(lambda: len(events(storage, "finished")) == 2, 120, "the run to finish")
        wait_log(c, "training-0", "TRAIN fit ended", 60)
        # The overlay's --on-success stay: the head stays up after the script's 0.
        wait_log(c, "training-0", "exited with 0", 60)
        eq(len(events(storage, "started")), 2, "fresh starts (the restart resumed, it did not start over)")
        eq(len(c.pod("training-0").runs), 1, "container starts of the head (the script ran once: Train restarted)")
        first_resume = min(r["at_ms"] for r in resumed)
        print(f"resumed {first_resume - preempted[0]['deadline_ms']} ms after the deadline "
              f"({first_resume - deleted_ms} ms after SIGTERM)")


if __name__ == "__main__":
    main(test_the_training_loop_checkpoints_before_the_deadline_and_resumes)
