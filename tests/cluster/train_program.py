"""The launch command of scenarios/test_train_sees_the_drain.py: a Ray Train v2 run of 2 CPU
workers (a DataParallelTrainer with a plain Python loop: no torch), run on the head by
`raylaunch run -- python train_program.py STORAGE` as a user's training script would be. It
writes a checkpoint only when Ray Train says a node of the run is being preempted, so a run that
resumes from a checkpoint can only have resumed from that one.

What the loop does is what docs/run.md "Surviving spot with Ray Train" tells a user to write:
each step, `ray.train.get_preemption_info()`; the first time it is not None, one
`ray.train.report(..., checkpoint=...)`; then train on. Ray 2.60.0's Train (ray/train/v2/):

- `get_preemption_info()` (api/train_fn_utils.py) returns a `PreemptionInfo`
  (api/preemption.py: `deadline_ms`, UNIX ms, None when the drain gave none, and
  `preempted_node_to_ranks`), broadcast from rank 0, so every rank must call it equally often;
- it is set on every worker by a `PreemptionWatcher` actor (_internal/execution/preemption.py)
  that polls the GCS's draining nodes (`ray._private.state.state.get_draining_nodes()`) every
  `RAY_TRAIN_PREEMPTION_POLL_INTERVAL_S` (5 s by default, _internal/constants.py);
- the controller then waits in its PreemptingState until the workers end or the deadline passes
  (plus `FailureConfig.preemption_grace_s`), and restarts the worker group from the latest
  checkpoint, charged to `FailureConfig.max_preemption_failures` (-1, unlimited), not to
  `max_failures` (_internal/execution/controller/controller.py, `_handle_preempting_state`).

Every line it prints starts with `TRAIN`; the workers also append one JSON object per event to
STORAGE/events.jsonl (the storage every pod sees), which the scenario reads:
  {"event": "preempted", "rank": 0, "host": "training-0", "step": 7, "deadline_ms": ..., "at_ms": ...}
  {"event": "checkpointed", "rank": 0, "step": 7, "at_ms": ...}
  {"event": "resumed", "rank": 1, "host": "training-1", "from_step": 7, "at_ms": ...}
"""
import json
import os
import socket
import sys
import tempfile
import time

STEP_S = 0.5
STEPS_AFTER_RESUME = 4


def event(storage, **fields):
    fields["at_ms"] = int(time.time() * 1000)
    fields["host"] = socket.gethostname()
    with open(os.path.join(storage, "events.jsonl"), "a") as f:
        f.write(json.dumps(fields) + "\n")
    print("TRAIN " + json.dumps(fields), flush=True)


def train_loop(config):
    import ray.train

    storage = config["storage"]
    rank = ray.train.get_context().get_world_rank()
    start, last = 0, None
    checkpoint = ray.train.get_checkpoint()
    if checkpoint is not None:
        with checkpoint.as_directory() as d, open(os.path.join(d, "state.json")) as f:
            saved = json.load(f)["step"]
        start, last = saved + 1, saved + 1 + STEPS_AFTER_RESUME
        event(storage, event="resumed", rank=rank, from_step=saved)
    else:
        event(storage, event="started", rank=rank)
    saved_on_preemption = False
    step = start
    while last is None or step < last:
        time.sleep(STEP_S)  # the training step
        info = ray.train.get_preemption_info()  # a barrier: every rank, every step
        if info is not None and not saved_on_preemption:
            event(storage, event="preempted", rank=rank, step=step, deadline_ms=info.deadline_ms,
                  ranks=info.preempted_ranks)
            with tempfile.TemporaryDirectory() as d:
                ckpt = None
                if rank == 0:  # one writer; every rank reports (report is a barrier too)
                    with open(os.path.join(d, "state.json"), "w") as f:
                        json.dump({"step": step}, f)
                    ckpt = ray.train.Checkpoint.from_directory(d)
                ray.train.report({"step": step}, checkpoint=ckpt)
            if rank == 0:
                event(storage, event="checkpointed", rank=rank, step=step)
            saved_on_preemption = True
        step += 1
    event(storage, event="finished", rank=rank, step=step - 1)


def main():
    storage = sys.argv[1]
    import ray
    from ray.train import FailureConfig, RunConfig, ScalingConfig
    from ray.train.v2.api.data_parallel_trainer import DataParallelTrainer

    ray.init()
    print(f"TRAIN driver on {socket.gethostname()}: {len([n for n in ray.nodes() if n['Alive']])} ALIVE nodes",
          flush=True)
    trainer = DataParallelTrainer(
        train_loop,
        train_loop_config={"storage": storage},
        # One worker a node (each pod's Ray has 1 CPU): rank 1 is on the worker pod.
        scaling_config=ScalingConfig(num_workers=2, resources_per_worker={"CPU": 1},
                                     placement_strategy="STRICT_SPREAD"),
        # max_failures=0: only a preemption may restart the run; anything else fails it.
        run_config=RunConfig(name="drain", storage_path=storage, failure_config=FailureConfig(max_failures=0)),
    )
    result = trainer.fit()
    print(f"TRAIN fit ended: metrics {result.metrics}, checkpoint {result.checkpoint}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
