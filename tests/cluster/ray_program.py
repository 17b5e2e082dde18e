"""The launch command of the real-Ray scenarios and the demo: a real Ray program, run on the
head by `raylaunch run -- <venv>/bin/python ray_program.py ...` as a user's training script
would be.

It connects with `ray.init()` (RAY_ADDRESS, which raylaunch sets), lists the nodes the GCS
has ALIVE, runs one task pinned to each of them (NodeAffinitySchedulingStrategy, soft=False:
the task runs on that node or fails) that returns the hostname of the pod it ran in, prints
what it saw and exits with the status it was given: that status becomes the head's exit status
and termination message. Every line it prints starts with `PROGRAM`, for the tests to find:

  PROGRAM started on training-0 at 1764600000.123 (pid 164)
  PROGRAM ray.init() connected: 3 ALIVE nodes: training-0 training-1 training-2
  PROGRAM task on training-1 ran in training-1
  PROGRAM hostnames: training-0 training-1 training-2
  PROGRAM exits 3

  --exit N            the exit status (default 0)
  --until-sigterm     after the tasks, wait for SIGTERM (a training run that goes on until the
                      pod is deleted)
  --until-file PATH   after the tasks, wait until PATH exists (in the pod: the test creates it)
  --checkpoint-s S    on SIGTERM (at any time after ray.init()): print `PROGRAM got SIGTERM,
                      checkpointing`, take S seconds (default 0), exit 143
  --task-timeout S    how long the pinned tasks may take (default 120; a loaded 2-core machine
                      starts a worker process per node, each importing Ray)
  --first-exit N      with --marker PATH: exit N the first time (PATH does not exist: it is made),
                      the --exit status once PATH exists (a file on a volume that outlives the
                      container, such as /dev/shm's emptyDir: a failure the restart heals)

Exit 1 (with a `PROGRAM failed:` line) when a task fails or times out.
"""
import argparse
import os
import signal
import socket
import sys
import time

STARTED = time.time()  # before `import ray`: the program's first instruction


def say(text):
    print(f"PROGRAM {text}", flush=True)


def on_sigterm(checkpoint_s):
    def handler(_signum, _frame):
        say("got SIGTERM, checkpointing")
        time.sleep(checkpoint_s)
        sys.exit(143)
    return handler


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--exit", type=int, default=0)
    p.add_argument("--until-sigterm", action="store_true")
    p.add_argument("--until-file")
    p.add_argument("--checkpoint-s", type=float, default=0)
    p.add_argument("--task-timeout", type=float, default=120)
    p.add_argument("--first-exit", type=int)
    p.add_argument("--marker")
    args = p.parse_args()
    if (args.first_exit is None) != (args.marker is None):
        p.error("--first-exit and --marker go together")
    say(f"started on {socket.gethostname()} at {STARTED:.3f} (pid {os.getpid()})")

    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    ray.init(log_to_driver=False)
    # After ray.init(): it installs Ray's own SIGTERM handler in the driver (which logs a stack
    # and dies by the signal); a training script that checkpoints installs its handler last.
    signal.signal(signal.SIGTERM, on_sigterm(args.checkpoint_s))
    alive = sorted((n for n in ray.nodes() if n["Alive"]), key=lambda n: n["NodeName"])
    say(f"ray.init() connected: {len(alive)} ALIVE nodes: {' '.join(n['NodeName'] for n in alive)}")

    @ray.remote(num_cpus=0)
    def hostname():
        return socket.gethostname()

    tasks = {n["NodeName"]: hostname.options(
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=n["NodeID"], soft=False)).remote()
        for n in alive}
    try:
        ran = {name: ray.get(ref, timeout=args.task_timeout) for name, ref in tasks.items()}
    except Exception as e:  # noqa: BLE001 - any failure of a task is the program's failure
        say(f"failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        return 1
    for name, host in ran.items():
        say(f"task on {name} ran in {host}")
    say(f"hostnames: {' '.join(ran[n] for n in sorted(ran))}")
    if args.until_sigterm:
        say("running until SIGTERM")
        while True:
            time.sleep(3600)
    if args.until_file:
        say(f"running until {args.until_file} exists")
        while not os.path.exists(args.until_file):
            time.sleep(0.1)
    status = args.exit
    if args.marker and not os.path.exists(args.marker):
        open(args.marker, "w").close()
        status = args.first_exit
    say(f"exits {status}")
    return status


if __name__ == "__main__":
    sys.exit(main())
