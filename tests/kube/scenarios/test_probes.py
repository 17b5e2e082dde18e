#!/usr/bin/python3
"""The overlay's httpGet probes (/livez, /readyz on 8081) as the real kubelet runs them, and
the answers a user gets with curl from the node, in every phase of a run:

- a worker waiting for its head: alive (starting), not ready; its startup probe passes;
- the head during the barrier, a joined worker: alive and ready; /metrics says `joining`;
- the command running, then finished with `stay`: everything alive and ready, no probe fails;
- the head gone: a worker's liveness still passes (its own raylet answers), its readiness fails
  (the kubelet makes it NotReady); the worker ends by itself once its raylet gives up on the
  head, exit 69 naming why, never killed by its liveness probe;
- Ray dies under the command (the head's raylet SIGKILLed from the node): the head's liveness
  fails, saying why, while it stops the command, then it exits 69 saying Ray died.

What stays in the emulated harness (tests/cluster/scenarios/test_readiness_follows_registration.py): a
readiness probe every 20 ms, to land one surely between `ray start` and the raylet's
registration; the real kubelet's period is whole seconds.
"""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import (assert_clean_end, first_exit, killed_by_probe, launched, program,  # noqa: E402
                               raylaunch_run, wait_exit, wait_log)
from kubetest.testing import eq, main  # noqa: E402

UNTIL_DONE = program("--until-file", "/tmp/done")
CHECKPOINTS = program("--until-sigterm", "--checkpoint-s", "3")  # checkpoints 3 s on SIGTERM
RECONNECT_S = 15  # RAY_gcs_rpc_server_reconnect_timeout_s: how long a raylet outlives its head


def answer(k, name, path):
    status, body = k.http_get(name, 8081, path)
    return f"{status} {body.strip()}"


def expect(k, name, livez, readyz, what, timeout=60):
    """Both answers start as expected (a phase change is seen by the next GET)."""
    last = []

    def matches():
        last[:] = [answer(k, name, "/livez"), answer(k, name, "/readyz")]
        return last[0].startswith(livez) and last[1].startswith(readyz)
    try:
        k.wait_for(matches, timeout, f"{name} {what}: /livez {livez!r}, /readyz {readyz!r}")
    except AssertionError as e:
        raise AssertionError(f"{name} {what}: the last answers were {last}") from e


def probe_failures(k, name):
    """The kubelet's events for `name`'s failed probes ("Unhealthy")."""
    return [e for e in k.events() if e["involvedObject"].get("name") == name and e.get("reason") == "Unhealthy"]


def test_probes_from_start_to_the_head_gone():
    env = {"RAY_gcs_rpc_server_reconnect_timeout_s": str(RECONNECT_S)}
    with raylaunch_run(replicas=3, launch=UNTIL_DONE, env=env, gated=True) as k:
        k.start(hold=["training-0", "training-2"])
        expect(k, "training-1", "200 ok: starting (waiting_head)", "503 not ready: waiting_head",
               "waiting for the head", 120)
        k.wait_for(lambda: k.pod("training-1").obj["status"]["containerStatuses"][0].get("started"), 60,
                   "training-1's startup probe to pass while it waits")

        k.release("training-0")
        wait_log(k, "training-0", "2/3 nodes alive; missing: training-2", 300)
        expect(k, "training-0", "200 ok: head GCS at 127.0.0.1:6379 answered",
               "200 ok: head GCS at 127.0.0.1:6379 answered", "in the barrier")
        expect(k, "training-1", "200 ok:", "200 ok:", "joined")
        metrics = k.http_get("training-0", 8081, "/metrics")[1]
        for want in ('raylaunch_phase{phase="joining"} 1', "raylaunch_nodes_alive 2", "raylaunch_nodes_expected 3"):
            assert want in metrics, f"{want!r} not in /metrics:\n{metrics}"

        k.release("training-2")
        wait_log(k, "training-0", "PROGRAM running until /tmp/done exists", 300)
        expect(k, "training-0", "200 ok:", "200 ok:", "running the command")
        assert 'raylaunch_phase{phase="running_command"} 1' in k.http_get("training-0", 8081, "/metrics")[1]
        k.wait_for(lambda: all(p.ready for p in k.pods), 120, "every pod Ready")

        eq(k.exec("training-0", ["touch", "/tmp/done"])[0], 0, "touch /tmp/done")
        wait_log(k, "training-0", "staying up (--on-success stay)", 60)
        expect(k, "training-0", "200 ok: the command succeeded; staying up", "200 ok:", "staying")
        failed_before = len(probe_failures(k, "training-0"))
        time.sleep(5)  # probes every second (the overlay's periods x0.2)
        eq(probe_failures(k, "training-0")[failed_before:], [], "the head's failed probes while staying")
        eq([p.restart_count for p in k.pods], [0, 0, 0], "restarts")

        # The head goes away for good: the worker's probes, until its raylet gives up on it.
        k.hold("training-0")
        k.delete_pod("training-0")
        first_exit(k, "training-0", 120)
        alive = []
        for _ in range(8):  # the first 8 s of RECONNECT_S, its raylet still up
            alive.append(answer(k, "training-1", "/livez"))
            time.sleep(1)
        eq([a for a in alive if not a.startswith("200 ")], [], "training-1's liveness after the head was gone")
        k.wait_for(lambda: not k.pod("training-1").ready, 60, "training-1 NotReady")
        run = wait_exit(k, "training-1", 0, RECONNECT_S + 90)
        assert_clean_end(run, "training-1", 69, "ray start exited with 1", ray_outlived=True)
        assert "is gone" in run.message and "gcs_rpc_server_reconnect_timeout_s" in run.message, run.message
        eq(killed_by_probe(k, "training-1"), [], "training-1 killed by a probe")
        eq(launched(k), 1, "program starts")


def test_ray_dies_under_the_command_and_the_heads_liveness_says_why():
    with raylaunch_run(replicas=2, launch=CHECKPOINTS) as k:
        k.start()
        wait_log(k, "training-0", "PROGRAM running until SIGTERM", 300)
        expect(k, "training-0", "200 ok:", "200 ok:", "running the command")
        k.kill_in_pod("training-0", "raylet", signal.SIGKILL)
        seen = []
        while not ((runs := k.pod("training-0").runs) and runs[0].ended):
            seen.append(answer(k, "training-0", "/livez"))
            time.sleep(0.1)
        failed = [a for a in seen if not a.startswith("200 ")]
        assert failed, f"no failed /livez between Ray's death and the exit: {seen[-10:]}"
        # `ray start --block` kills the rest of Ray (the GCS too) before it exits itself: an answer
        # in that moment finds the GCS gone; once raylaunch has seen Ray's end, it says so. No
        # answer at all: the container is gone.
        why = ("503 stopping: Ray died while the command ran", "503 head GCS at 127.0.0.1:6379 did not answer", "None ")
        assert all(a.startswith(why) for a in failed), failed
        assert any(a.startswith(why[0]) for a in failed), failed
        run = wait_exit(k, "training-0", 0, 60)
        assert_clean_end(run, "training-0", 69, "Ray died while the command ran (ray start exited with 1)",
                         ray_outlived=True)
        assert "PROGRAM got SIGTERM, checkpointing" in run.text(), run.text()[-2000:]


main(test_probes_from_start_to_the_head_gone, test_ray_dies_under_the_command_and_the_heads_liveness_says_why)
