#!/usr/bin/python3
"""Scenario 7 on the real Ray: the overlay's httpGet probes (/livez, /readyz on 8081), as the
kubelet runs them, and the answers a user gets with curl, in every phase of a run:

- a worker waiting for its head: alive (starting), not ready;
- the head during the barrier, a joined worker: alive and ready; /metrics says `joining`;
- the command running, then finished with `stay`: everything alive and ready, no restart;
- the head gone: a worker's liveness still passes (its own raylet answers), its readiness
  fails; the worker ends by itself once its raylet gives up on the head, exit 69 naming why;
- Ray dies under the command (the head's raylet OOM-killed): the head's liveness fails, saying
  why, while it stops the command, then it exits 69 saying Ray died.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.scenario import (assert_clean_end, kill_in_pod, launched, program,  # noqa: E402
                              raylaunch_cluster, wait_exit, wait_log)
from harness.testing import eq, main  # noqa: E402

# The program runs until the test creates /tmp/done in the head pod.
UNTIL_DONE = program("--until-file", "/tmp/done")
# A program that checkpoints for 3 s on SIGTERM: liveness probes (every second here) land in it.
CHECKPOINTS = program("--until-sigterm", "--checkpoint-s", "3")
RECONNECT_S = 15  # RAY_gcs_rpc_server_reconnect_timeout_s: how long a raylet outlives its head


def answers(c, name):
    """(/livez, /readyz) as curl from the node would see them: "200 ok: ..." / "503 ..."."""
    return tuple(c.http_get(name, 8081, path)[2].strip() for path in ("/livez", "/readyz"))


def expect(c, name, livez, readyz, what, timeout=60):
    """Waits until both answers start as expected (a phase change is seen by the next GET)."""
    last = []

    def matches():
        last[:] = answers(c, name)
        return all(a.startswith(w) for a, w in zip(last, (livez, readyz)))
    try:
        c.wait_for(matches, timeout, f"{name} {what}: /livez {livez!r}, /readyz {readyz!r}")
    except TimeoutError as e:
        raise AssertionError(f"{name} {what}: the last answers were {last}") from e


def probes_between(c, name, kind, start, end):
    return [r for r in c.probes_of(name, kind) if start <= r.t <= end]


def test_probes_from_start_to_the_head_gone():
    image_env = {"RAY_gcs_rpc_server_reconnect_timeout_s": str(RECONNECT_S)}
    with raylaunch_cluster("p4de", replicas=3, launch=UNTIL_DONE, image_env=image_env) as c:
        c.start(hold=["training-0", "training-2"])
        expect(c, "training-1", "200 ok: starting (waiting_head)", "503 not ready: waiting_head",
               "waiting for the head")
        c.wait_for(lambda: any(r.ok for r in c.probes_of("training-1", "startup")), 30,
                   "training-1's startup probe to pass while it waits")

        c.release("training-0")
        wait_log(c, "training-0", "2/3 nodes alive; missing: training-2", 240)
        expect(c, "training-0", "200 ok: head GCS at 127.0.0.1:6379 answered",
               "200 ok: head GCS at 127.0.0.1:6379 answered", "in the barrier")
        expect(c, "training-1", "200 ok:", "200 ok:", "joined")
        metrics = c.http_get("training-0", 8081, "/metrics")[2]
        for want in ('raylaunch_phase{phase="joining"} 1', "raylaunch_nodes_alive 2", "raylaunch_nodes_expected 3"):
            assert want in metrics, f"{want!r} not in /metrics:\n{metrics}"

        c.release("training-2")
        wait_log(c, "training-0", "PROGRAM running until /tmp/done exists", 240)
        expect(c, "training-0", "200 ok:", "200 ok:", "running the command")
        assert 'raylaunch_phase{phase="running_command"} 1' in c.http_get("training-0", 8081, "/metrics")[2]
        c.wait_for(lambda: all(p.ready for p in c.pods), 90, "every pod ready")

        open(c.path_in("training-0", "/tmp/done"), "w").close()  # the command finishes: stay
        wait_log(c, "training-0", "staying up (--on-success stay)", 30)
        expect(c, "training-0", "200 ok: the command succeeded; staying up", "200 ok:", "staying")
        stay_at = c.loop.now()
        c.wait_for(lambda: len(probes_between(c, "training-0", "liveness", stay_at, 1e9)) >= 5, 30, "probes")
        eq([r for r in c.probes_of("training-0") if r.t >= stay_at and not r.ok], [], "failed probes while staying")
        eq([p.restart_count for p in c.pods], [0, 0, 0], "restarts")

        # The head goes away for good: the workers' probes, until their raylets give up on it.
        c.hold("training-0")
        c.delete_pod("training-0")
        gone_at = wait_exit(c, "training-0", 0, 60).finished_at
        # Its liveness while its raylet still runs (RECONNECT_S): the first 8 probes after
        # (one a second).
        c.wait_for(lambda: len(probes_between(c, "training-1", "liveness", gone_at, 1e9)) >= 8, RECONNECT_S,
                   "8 liveness probes of training-1 after the head was gone")
        alive = probes_between(c, "training-1", "liveness", gone_at, 1e9)[:8]
        eq([r for r in alive if not r.ok], [], "training-1's liveness after the head was gone")
        not_ready = c.wait_for(lambda: next((e.t for e in c.events if e.pod == "training-1" and e.t > gone_at
                                             and e.reason == "NotReady"), None), 30, "training-1 NotReady")
        try:
            run = wait_exit(c, "training-1", 0, RECONNECT_S + 60)
        except TimeoutError:
            raise AssertionError("training-1's raylet did not give up on its gone head; its log:\n" +
                                 c.exec("training-1", ["tail", "-5", "/tmp/ray/session_latest/logs/raylet.err"])[1])
        ray_exit = next(line.t for line in run.log if "ray start (pid" in line.text and "exited" in line.text)
        assert alive[-1].t + alive[-1].duration < ray_exit and not_ready < ray_exit, (alive[-1], not_ready, ray_exit)
        eq([e for e in c.events if e.pod == "training-1" and "liveness" in e.message and e.reason == "Killing"],
           [], "training-1 killed by its liveness probe")
        assert_clean_end(c, run, "training-1", 69, "ray start exited with 1", ray_outlived=True)
        assert "is gone" in run.message and "gcs_rpc_server_reconnect_timeout_s" in run.message, run.message
        eq(launched(c), 1, "launch command runs")
    eq(c.leftovers(), [], "nothing left running")


def test_a_workers_readiness_follows_its_registration():
    # Readiness every 20 ms: a probe surely lands between `ray start` and its raylet's
    # registration, as one does by chance with the manifests' period (scenario 1, 4 pods).
    fast = {"readiness": {"periodSeconds": 0.02}}
    with raylaunch_cluster("p4de", replicas=2, probes=fast) as c:
        c.start()
        wait_log(c, "training-0", "2/2 nodes alive after", 240)
        joined = next(line.t for line in c.pod("training-0").current.log if "2/2 nodes alive after" in line.text)
        settle = joined + 1.5  # the endpoint's own 1 s answer cache, and a probe in flight
        workers = ("training-1",)
        c.wait_for(lambda: all(len(probes_between(c, w, "readiness", settle, 1e9)) >= 8 for w in workers),
                   30, "8 readiness probes of each worker after the barrier")
        for w in workers:
            stale = [r for r in probes_between(c, w, "readiness", settle, 1e9) if "not registered" in r.detail]
            eq(stale, [], f"{w}'s readiness after the head counted it ALIVE")
    eq(c.leftovers(), [], "nothing left running")


def test_ray_dies_under_the_command_and_the_heads_liveness_says_why():
    """The head's raylet is OOM-killed while the program runs: `ray start --block` sees it die
    and stops the rest; raylaunch stops the program (it checkpoints for 3 s) and Ray, then exits
    69. Meanwhile the head's liveness fails, saying why."""
    with raylaunch_cluster("p4de", replicas=2, launch=CHECKPOINTS) as c:
        c.start()
        wait_log(c, "training-0", "PROGRAM running until SIGTERM", 240)
        expect(c, "training-0", "200 ok:", "200 ok:", "running the command")
        died_at = c.loop.now()
        kill_in_pod(c, "training-0", "raylet", signal.SIGKILL)
        run = wait_exit(c, "training-0", 0, 90)
        failed = [r for r in probes_between(c, "training-0", "liveness", died_at, run.finished_at) if not r.ok]
        assert failed, f"no failed liveness probe between Ray's death and the exit: {c.probes_of('training-0')[-10:]}"
        # `ray start --block` kills the rest of Ray (the GCS too) before it exits itself: a probe
        # in that moment finds the GCS gone; once raylaunch has seen Ray's end, it says so.
        why = ("503 stopping: Ray died while the command ran", "503 head GCS at 127.0.0.1:6379 did not answer")
        assert all(r.detail.startswith(why) for r in failed), failed
        assert failed[-1].detail.startswith(why[0]), failed
        assert_clean_end(c, run, "training-0", 69, "Ray died while the command ran (ray start exited with 1)",
                         ray_outlived=True)
        assert "PROGRAM got SIGTERM, checkpointing" in run.text(), run.text()[-2000:]
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_probes_from_start_to_the_head_gone, test_a_workers_readiness_follows_its_registration,
         test_ray_dies_under_the_command_and_the_heads_liveness_says_why)
