#!/usr/bin/python3
"""Scenario 7 of issue 12: the overlay's httpGet probes (/livez, /readyz on 8081), as the
kubelet runs them, and the answers a user gets with curl, in every phase of a run:

- a worker waiting for its head: alive (starting), not ready;
- the head during the barrier, a joined worker: alive and ready; /metrics says `joining`;
- the command running, then finished with `stay`: everything alive and ready, no restart;
- the head gone: a worker's liveness still passes (its own raylet answers), its readiness
  fails; the worker ends by itself once its raylet gives up on the head, exit 69 naming why;
- Ray dies under the command (the head's raylet OOM-killed): the head's liveness fails while
  it stops the command, then it exits 69 saying Ray died.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.scenario import (assert_clean_end, kill_in_pod, launched,  # noqa: E402
                              raylaunch_cluster, stop_settled, wait_exit, wait_log)
from harness.testing import eq, main  # noqa: E402

# The command runs until the test creates /tmp/done in the head pod.
UNTIL_DONE = ["sh", "-c", 'echo "LAUNCH on $HOSTNAME"; while [ ! -e /tmp/done ]; do sleep 0.1; done']
# A command that checkpoints for 2 s on SIGTERM (the term grace is 3 s at time_scale 0.05).
CHECKPOINTS = ["sh", "-c", 'trap \'echo "COMMAND got SIGTERM, checkpointing"; sleep 2; exit 143\' TERM; '
               'echo "LAUNCH on $HOSTNAME"; while :; do sleep 0.1; done']
RECONNECT_S = 10  # RAY_gcs_rpc_server_reconnect_timeout_s: how long a raylet outlives its head


def answers(c, name):
    """(/livez, /readyz) as curl from the node would see them: "200 ok: ..." / "503 ..."."""
    return tuple(c.http_get(name, 8081, path)[2].strip() for path in ("/livez", "/readyz"))


def expect(c, name, livez, readyz, what, timeout=60):
    """Waits until both answers start as expected (a phase change is seen by the next GET).
    60 s: a worker's readiness can lag ~36 s behind its registration (a known bug, below)."""
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
    # Ray 2.40: its GCS filters GetAllNodeInfo by node name, so a worker's readiness is asked
    # fresh each time (for Ray <= 2.35 it is kept 30 s: see the known bug below).
    image_env = {"RAY_gcs_rpc_server_reconnect_timeout_s": str(RECONNECT_S), "FAKE_RAY_VERSION": "2.40.0"}
    with raylaunch_cluster("p4de", replicas=3, launch=UNTIL_DONE, image_env=image_env) as c:
        c.start(hold=["training-0", "training-2"])
        expect(c, "training-1", "200 ok: starting (waiting_head)", "503 not ready: waiting_head",
               "waiting for the head")
        c.wait_for(lambda: any(r.ok for r in c.probes_of("training-1", "startup")), 30,
                   "training-1's startup probe to pass while it waits")

        c.release("training-0")
        wait_log(c, "training-0", "2/3 nodes alive; missing: training-2", 60)
        expect(c, "training-0", "200 ok: head GCS at 127.0.0.1:6379 answered",
               "200 ok: head GCS at 127.0.0.1:6379 answered", "in the barrier")
        expect(c, "training-1", "200 ok:", "200 ok:", "joined")
        metrics = c.http_get("training-0", 8081, "/metrics")[2]
        for want in ('raylaunch_phase{phase="joining"} 1', "raylaunch_nodes_alive 2", "raylaunch_nodes_expected 3"):
            assert want in metrics, f"{want!r} not in /metrics:\n{metrics}"

        c.release("training-2")
        wait_log(c, "training-0", "LAUNCH on training-0", 60)
        expect(c, "training-0", "200 ok:", "200 ok:", "running the command")
        assert 'raylaunch_phase{phase="running_command"} 1' in c.http_get("training-0", 8081, "/metrics")[2]
        # Up to ~36 s: a worker's cached "not registered" (the known bug below).
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
        # Its liveness while its raylet still runs (RECONNECT_S): the first 8 probes after.
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
        assert_clean_end(c, run, "training-1", 69, "ray start exited with 1")
        assert "is gone" in run.message and "gcs_rpc_server_reconnect_timeout_s" in run.message, run.message
        eq(launched(c), 1, "launch command runs")
        stop_settled(c)  # training-1 restarts now
    eq(c.leftovers(), [], "nothing left running")


def test_a_workers_readiness_follows_its_registration():
    # Readiness every 20 ms: a probe surely lands between `ray start` and its raylet's
    # registration, as one does by chance with the manifests' period (scenario 1, 4 pods).
    fast = {"readiness": {"periodSeconds": 0.02}}
    with raylaunch_cluster("p4de", replicas=3, probes=fast) as c:
        c.start()
        wait_log(c, "training-0", "3/3 nodes alive after", 60)
        joined = next(line.t for line in c.pod("training-0").current.log if "3/3 nodes alive after" in line.text)
        settle = joined + 1.5  # the endpoint's own 1 s answer cache, and a probe in flight
        workers = ("training-1", "training-2")
        c.wait_for(lambda: all(len(probes_between(c, w, "readiness", settle, 1e9)) >= 8 for w in workers),
                   30, "8 readiness probes of each worker after the barrier")
        for w in workers:
            stale = [r for r in probes_between(c, w, "readiness", settle, 1e9) if "not registered" in r.detail]
            eq(stale, [], f"{w}'s readiness after the head counted it ALIVE")
        c.stop()
    eq(c.leftovers(), [], "nothing left running")


def ray_dies_under_the_command(check):
    """The head's raylet is OOM-killed while the command runs; `check(c, failed, run)` gets
    the head's failed liveness probes from then until it exited, and that exit."""
    with raylaunch_cluster("p4de", replicas=2, launch=CHECKPOINTS) as c:
        c.start()
        wait_log(c, "training-0", "LAUNCH on training-0", 60)
        expect(c, "training-0", "200 ok:", "200 ok:", "running the command")
        died_at = c.loop.now()
        kill_in_pod(c, "training-0", "raylet", signal.SIGKILL)
        run = wait_exit(c, "training-0", 0, 60)
        failed = [r for r in probes_between(c, "training-0", "liveness", died_at, run.finished_at) if not r.ok]
        check(c, failed, run)
        stop_settled(c)  # the head restarts now
    eq(c.leftovers(), [], "nothing left running")


def test_ray_dies_under_the_command_and_the_heads_liveness_fails():
    def check(c, failed, run):
        assert failed, f"no failed liveness probe between Ray's death and the exit: {c.probes_of('training-0')[-10:]}"
        assert all(r.detail.startswith("503 stopping:") for r in failed), failed
        assert_clean_end(c, run, "training-0", 69, "Ray died while the command ran (ray start exited with 1)")
        assert "COMMAND got SIGTERM, checkpointing" in run.text(), run.text()[-2000:]
    ray_dies_under_the_command(check)


def test_the_failing_liveness_says_why():

    def check(c, failed, run):
        assert failed and all("503 stopping: Ray died while the command ran" in r.detail for r in failed), failed
    ray_dies_under_the_command(check)


if __name__ == "__main__":
    main(test_probes_from_start_to_the_head_gone, test_a_workers_readiness_follows_its_registration,
         test_ray_dies_under_the_command_and_the_heads_liveness_fails, test_the_failing_liveness_says_why)
