"""The launch command of the survival scenarios (issue 19): a real Ray program, run on the head
by `raylaunch run -- python survive_program.py ...` as a training script would be, whose run a
scenario interrupts. Every line it prints starts with `SURVIVE`:

  SURVIVE started on training-0: restart 0, 2 nodes present (pid 164)
  SURVIVE ray.init() connected: 2 ALIVE nodes: training-0 training-1
  SURVIVE task on training-1 submitted
  SURVIVE task on training-1 failed: NodeDiedError ...      (or: done)
  SURVIVE exits 1

The pinned task (NodeAffinitySchedulingStrategy, soft=False) creates /tmp/survive-task-running
in the pod it runs in when it starts (its own /tmp: the scenario looks there), then sleeps.

  --pin NODE         one task pinned to the node named NODE (default: none)
  --seconds S        how long the task sleeps (default: 3600)
  --on-failure X     when the task fails: exit (status 1, default) or wait (until SIGTERM)
  --restarted-exit N on a rerun in place (RAYLAUNCH_RESTART_COUNT >= 1): no task, exit N at once
  --wait             after the task (or with none), wait for SIGTERM instead of exiting 0
"""
import argparse
import os
import signal
import socket
import sys
import time


def say(text):
    print(f"SURVIVE {text}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pin")
    p.add_argument("--seconds", type=float, default=3600)
    p.add_argument("--on-failure", choices=("exit", "wait"), default="exit")
    p.add_argument("--restarted-exit", type=int)
    p.add_argument("--wait", action="store_true")
    args = p.parse_args()
    restart = int(os.environ.get("RAYLAUNCH_RESTART_COUNT", "-1"))
    present = os.environ.get("RAYLAUNCH_NODES_PRESENT", "?")
    say(f"started on {socket.gethostname()}: restart {restart}, {present} nodes present (pid {os.getpid()})")
    signal.signal(signal.SIGTERM, lambda *_: (say("got SIGTERM"), sys.exit(143)))

    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    ray.init(log_to_driver=False)
    signal.signal(signal.SIGTERM, lambda *_: (say("got SIGTERM"), sys.exit(143)))
    alive = sorted((n for n in ray.nodes() if n["Alive"]), key=lambda n: n["NodeName"])
    say(f"ray.init() connected: {len(alive)} ALIVE nodes: {' '.join(n['NodeName'] for n in alive)}")
    if args.restarted_exit is not None and restart >= 1:
        say(f"exits {args.restarted_exit}")
        return args.restarted_exit

    if args.pin:
        node = next((n for n in alive if n["NodeName"] == args.pin), None)
        if node is None:
            say(f"failed: no ALIVE node named {args.pin}")
            return 1

        @ray.remote(num_cpus=0, max_retries=0)
        def task(seconds):
            with open("/tmp/survive-task-running", "w") as f:
                f.write(str(os.getpid()))
            time.sleep(seconds)
            return socket.gethostname()

        ref = task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
            node_id=node["NodeID"], soft=False)).remote(args.seconds)
        say(f"task on {args.pin} submitted")
        try:
            say(f"task on {args.pin} done in {ray.get(ref)}")
        except Exception as e:  # noqa: BLE001 - the node going away is what the scenarios cause
            say(f"task on {args.pin} failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            if args.on_failure == "exit":
                say("exits 1")
                return 1
            args.wait = True
    if args.wait:
        say("running until SIGTERM")
        while True:
            time.sleep(3600)
    say("exits 0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
