#!/usr/bin/env python3
"""The object store against the current release's real rules, on nodes with their own /dev/shm:

- Ray refuses an --object-store-memory above the *free* space of /dev/shm when it is above
  10**10 bytes (services.py, determine_plasma_store_config): `ray start` exits. raylaunch's plan
  fails the same size before anything starts (check "object-store", exit 78).
- A container restarted on a memory emptyDir finds the last one's files in /dev/shm. Sized from
  the total (as raylaunch did), the store does not fit in what is free and Ray puts it in /tmp
  ("The object store is using /tmp instead of /dev/shm", much slower); sized from the free space,
  `raylaunch run` gets a store Ray keeps in /dev/shm.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import raycluster as rc  # noqa: E402
from raycluster import Cluster, Failure, wait_for  # noqa: E402

MIB = 1 << 20
SLOW = "instead of /dev/shm"             # Ray's warning when the store falls back to /tmp
REFUSED = "exceeds /dev/shm size"        # Ray's ValueError above 10**10 bytes


def expect(cond, message, detail=None):
    if not cond:
        raise Failure(message + (f"\n{detail}" if detail is not None else ""))


def finished(node, timeout=180):
    wait_for(lambda: not node.alive(), timeout, f"{node.name} to end")
    with open(node.log, errors="replace") as f:
        return node.proc.returncode, f.read()


def sized_by_raylaunch(node):
    """The node's `raylaunch run` environment without the test's fixed --object-store-memory."""
    env = node.raylaunch_env(nodes=1)
    env["RAYLAUNCH_RAY_ARGS"] = " ".join(a for a in env["RAYLAUNCH_RAY_ARGS"].split()
                                         if not a.startswith("--object-store-memory"))
    return env


def plan_json(c, name, env, shm, stale):
    """`raylaunch plan --output json` as the pod's PID 1 (so it sees the pod's /dev/shm)."""
    node = c.add_node(name, head=True, shm=shm, stale_shm=stale)
    node.env.update(sized_by_raylaunch(node))
    node.env.update(env)
    node.start(["sh", "-c", 'exec "$0" plan --output json >/tmp/plan.json', c.raylaunch_bin])
    rc_, log = finished(node)
    with open(os.path.join(node.dir, "tmp", "plan.json")) as f:
        text = f.read()
    return rc_, (json.loads(text) if text else None), log


def check(plan, name):
    return next(ch for ch in plan["checks"] if ch["name"] == name)


def test_explicit_size_above_free_shm():
    version = rc.current_release()
    with Cluster(version, rc.work_dir("store-refused")) as c:
        too_big = 11_000_000_000  # > 10**10 and > the 1 GiB /dev/shm
        node = c.add_node("ray-itself", head=True, shm="1g", args=[f"--object-store-memory={too_big}"]).start()
        code, log = finished(node)
        expect(code != 0 and REFUSED in log, f"Ray {version} refuses {too_big} bytes with a 1 GiB /dev/shm", log[-3000:])
        code, plan, log = plan_json(c, "training-0", {"RAYLAUNCH_OBJECT_STORE_MEMORY": str(too_big),
                                                      "RAYLAUNCH_CHECKS": "strict", "RAYLAUNCH_SHM_MIN": "512Mi"},
                                    shm="1g", stale=0)
        verdict = check(plan, "object-store")
        expect(code == 78 and verdict["status"] == "fail" and "refuses" in verdict["detail"],
               "raylaunch's plan fails it before ray start", json.dumps(verdict))
    print(f"  Ray exits on an 11 GB store with 1 GiB /dev/shm; raylaunch plan: 78, {verdict['detail']}", flush=True)


def test_leftovers_in_shm():
    version = rc.current_release()
    with Cluster(version, rc.work_dir("store-leftovers")) as c:
        shm, stale = "1g", 600 * MIB
        # The size raylaunch planned before this change, from the total: 1Gi minus half of it.
        from_total = 512 * MIB
        node = c.add_node("ray-itself", head=True, shm=shm, stale_shm=stale,
                          args=[f"--object-store-memory={from_total}"]).start()
        c.wait_alive(["ray-itself"])
        with open(node.log, errors="replace") as f:
            log = f.read()
        expect(SLOW in log, "sized from the total, the store does not fit beside the leftovers: Ray uses /tmp",
               log[-3000:])
        node.crash()

        code, plan, _ = plan_json(c, "training-0", {"RAYLAUNCH_SHM_MIN": "512Mi"}, shm=shm, stale=stale)
        store = next(int(a.split("=", 1)[1]) for a in plan["ray_start"] if a.startswith("--object-store-memory="))
        expect(store <= 1024 * MIB - stale, f"the plan's store ({store} B) fits in the free space")
        verdict = check(plan, "object-store")
        expect(code == 0 and verdict["status"] == "warn" and "taken by files already there" in verdict["detail"],
               "the plan sees the leftovers", json.dumps(verdict))

        head = c.add_node("training-1", head=True, shm=shm, stale_shm=stale)
        head.env.update(sized_by_raylaunch(head), HOSTNAME="training-0", RAYLAUNCH_SHM_MIN="512Mi")
        head.start([c.raylaunch_bin, "run", "--", "true"])
        code, log = finished(head)
        expect(code == 0, "raylaunch run with the leftovers in /dev/shm", log[-3000:])
        expect(SLOW not in log, "sized from the free space, Ray keeps the store in /dev/shm", log[-3000:])
    print(f"  600Mi left in a 1Gi /dev/shm: the old size (512Mi) goes to /tmp; raylaunch's "
          f"({store} B) stays in /dev/shm", flush=True)


if __name__ == "__main__":
    rc.main(test_explicit_size_above_free_shm, test_leftovers_in_shm)
