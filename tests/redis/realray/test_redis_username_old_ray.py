#!/usr/bin/env python3
"""REDIS_USERNAME needs `ray start --redis-username`, which Ray has from 2.41: with the newest
pinned release older than that, Ray's own `ray start` rejects the option, and raylaunch refuses
REDIS_USERNAME (64, one line naming the installed version) before anything starts: no Redis
preflight, no `ray start`. With the current release the same settings plan `--redis-username`.
The version is the installed package's (its dist-info METADATA), found from RAYLAUNCH_VENV.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "gcs", "compat"))
import raycluster as rc  # noqa: E402
from raycluster import Cluster, Failure, wait_for  # noqa: E402

SINCE = (2, 41)


def expect(cond, message, detail=None):
    if not cond:
        raise Failure(message + (f"\n{detail}" if detail is not None else ""))


def old_release():
    older = [v for v, _ in rc.releases() if rc.version_tuple(v) < SINCE]
    if not older:
        raise rc.Skip(f"no pinned release older than {SINCE[0]}.{SINCE[1]} in tests/ray-releases.txt")
    return max(older, key=rc.version_tuple)


def test_old_ray_refused():
    version = old_release()
    env = {"RAY_REDIS_ADDRESS": "redis://127.0.0.1:6391", "RAY_external_storage_namespace": "blue",
           "REDIS_USERNAME": "ray", "REDIS_PASSWORD": "pw"}
    with Cluster(version, rc.work_dir(f"username-{version}")) as c:
        ray_itself = c.add_node("ray-itself", head=True, args=["--redis-username=ray"]).start()
        wait_for(lambda: not ray_itself.alive(), 120, "ray start --redis-username to exit")
        with open(ray_itself.log, errors="replace") as f:
            said = f.read()
        expect(ray_itself.proc.returncode != 0 and "No such option" in said and "--redis-username" in said,
               f"Ray {version}'s ray start has no --redis-username", said[-2000:])

        head = c.add_node("training-0", head=True, env=env)
        head.start_raylaunch(nodes=1, command=["true"])
        wait_for(lambda: not head.alive(), 60, "raylaunch run to refuse")
        with open(head.log, errors="replace") as f:
            said = f.read()
        lines = [line for line in said.splitlines() if line.startswith("raylaunch: ")]
        expect(head.proc.returncode == 64 and len(lines) == 1, "64 with one line", said)
        expect(f"the installed Ray {version} (" in lines[0] and "has no `ray start --redis-username`" in lines[0],
               "the line names the installed version and the missing option", lines[0])
        expect("waiting for Redis" not in said and not head.pids("ray"), "nothing started: no preflight, no ray", said)
        expect(head.termination_message() == lines[0].split("raylaunch: error: ", 1)[-1],
               "the termination message says the same", head.termination_message())
    print(f"  Ray {version}: ray start rejects --redis-username; raylaunch: 64, {lines[0]}", flush=True)


def test_current_ray_plans_it():
    version = rc.current_release()
    env = {"RAY_REDIS_ADDRESS": "redis://127.0.0.1:6391", "RAY_external_storage_namespace": "blue",
           "REDIS_USERNAME": "ray", "REDIS_PASSWORD": "pw", "RAYLAUNCH_VENV": rc.venv(version)}
    with Cluster(version, rc.work_dir(f"username-{version}")) as c:
        r = c.raylaunch("plan", "--hostname", "training-0", "--nodes", "1", "--head-address", "127.0.0.1",
                        "--checks", "warn", "--output", "json", env=env)
        expect(r.rc == 0 and "--redis-username=ray" in r.json()["ray_start"], f"Ray {version}: planned", r)
    print(f"  Ray {version}: ray start gets --redis-username", flush=True)


if __name__ == "__main__":
    rc.main(test_old_ray_refused, test_current_ray_plans_it)
