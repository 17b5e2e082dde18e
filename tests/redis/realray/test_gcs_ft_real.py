#!/usr/bin/env python3
"""GCS fault tolerance on real Ray and a real redis-server (Debian's), in private namespaces.

    test_gcs_ft_real.py --release 2.9.3|2.60.0

A 3-pod cluster started by `raylaunch run` as each pod's PID 1 (the gcs-ft component's settings:
RAY_REDIS_ADDRESS, REDIS_PASSWORD, REDIS_USERNAME where Ray has --redis-username, a storage
namespace). The head's GCS is SIGKILLed: its `ray start --block` stops the pod, which comes back
(the kubelet's restart); the GCS reloads its tables from Redis and the workers, which kept running
(RAY_gcs_rpc_server_reconnect_timeout_s=600 from raylaunch), reconnect with the same node ids and
the same raylet processes. Another cluster wrote its own namespace into the same Redis first.
Then `raylaunch redis-cleanup` deletes exactly the keys the real GCS wrote for this namespace (in
Ray's layout of that release: one hash named after the namespace up to 2.37, one hash per table
from 2.38), counted before and after, and nothing of the other namespace.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "gcs", "compat"))
import raycluster as rc  # noqa: E402
from raycluster import Cluster, Failure, wait_for  # noqa: E402

PASSWORD = "ft-Redis pass 'quoted'"   # spaces and quotes: one argument all the way to Ray
USER, USER_PASSWORD = "ray", "ray-user-pw-7"
NS, OTHER_NS = "blue-run", "green-run"
USERNAME_SINCE = (2, 41)              # ray start --redis-username (ray-project/ray#48225)
TABLE_KEYS_SINCE = (2, 38)            # one hash per table, RAY<ns>@<TABLE> (#46861)


def expect(cond, message, detail=None):
    if not cond:
        raise Failure(message + (f"\n{detail}" if detail is not None else ""))


class Redis:
    """A redis-server on 127.0.0.1 of this namespace, with a password and an ACL user."""

    def __init__(self, work, port=6390):
        self.port = port
        conf = os.path.join(work, "redis.conf")
        with open(conf, "w") as f:
            f.write(f"port {port}\nbind 127.0.0.1\nsave \"\"\nappendonly no\ndir {work}\n"
                    f"requirepass \"ft-Redis pass 'quoted'\"\nuser {USER} on >{USER_PASSWORD} ~* &* +@all\n")
        self.proc = subprocess.Popen(["redis-server", conf], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        wait_for(lambda: self.cli("PING").strip() == "PONG", 30, "redis-server")

    def cli(self, *args):
        r = subprocess.run(["redis-cli", "-p", str(self.port), "--no-auth-warning", "-a", PASSWORD, *args],
                           capture_output=True, text=True)
        return r.stdout

    def keys(self):
        """{key: (type, fields)} of every key: the test's own count, independent of raylaunch."""
        out = {}
        for key in self.cli("--scan", "--pattern", "*").splitlines():
            kind = self.cli("TYPE", key).strip()
            fields = int(self.cli("HLEN", key).strip()) if kind == "hash" else -1
            out[key] = (kind, fields)
        return out


def of_namespace(keys, ns):
    """The keys Ray's GCS writes for `ns`: RAY<ns>@<TABLE> (>= 2.38), the hash <ns> (<= 2.37)."""
    return {k: v for k, v in keys.items()
            if k == ns or (k.startswith(f"RAY{ns}@") and "@" not in k[len(f"RAY{ns}@"):])}


def ft_env(redis, version, ns):
    env = {"RAY_REDIS_ADDRESS": f"redis://127.0.0.1:{redis.port}", "RAY_external_storage_namespace": ns}
    if rc.version_tuple(version) >= USERNAME_SINCE:
        env.update({"REDIS_USERNAME": USER, "REDIS_PASSWORD": USER_PASSWORD})
    else:
        env["REDIS_PASSWORD"] = PASSWORD
    return env


def other_cluster(version, work, redis):
    """Another Ray cluster sharing the Redis: its head writes namespace OTHER_NS, then is gone."""
    with Cluster(version, os.path.join(work, "other")) as c:
        head = c.add_node("other-0", head=True, env=ft_env(redis, version, OTHER_NS))
        head.start_raylaunch(nodes=1, command=["sleep", "100000"])
        c.wait_alive(["other-0"])
        wait_for(lambda: of_namespace(redis.keys(), OTHER_NS), 60, f"{OTHER_NS}'s keys in Redis")
        head.crash()


def test_ft(version):
    work = rc.work_dir(f"ft-{version}")
    redis = Redis(work)
    other_cluster(version, work, redis)
    other_before = of_namespace(redis.keys(), OTHER_NS)
    with Cluster(version, os.path.join(work, "blue")) as c:
        env = ft_env(redis, version, NS)
        head = c.add_node("training-0", head=True, env=env)
        head.start_raylaunch(nodes=3, command=["sleep", "100000"])
        workers = [c.add_node(f"training-{i}", env=env) for i in (1, 2)]
        for w in workers:
            w.start_raylaunch(nodes=3)
        s = c.wait_alive(["training-0", "training-1", "training-2"])
        wait_for(lambda: "3/3 nodes alive" in open(head.log, errors="replace").read(), 120, "the head's barrier")
        for node in c.nodes:
            node.wait_settled()  # a GCS crash comes after start-up, not during it
        ids = {n["node_name"]: n["node_id"] for n in s["nodes"] if n["state"] == "ALIVE"}
        raylets = {w.name: w.pids("raylet") for w in workers}
        expect(all(raylets.values()), "each worker has its raylet", raylets)
        print(f"  cluster up; workers {ids['training-1'][:12]}, {ids['training-2'][:12]}", flush=True)

        # The head's GCS dies. Its ray start --block stops the pod; the pod restarts.
        gcs = head.pids("gcs_server")
        expect(len(gcs) == 1, "one gcs_server on the head")
        os.kill(gcs[0], 9)
        wait_for(lambda: not head.alive(), 120, "the head pod to end after its GCS died")
        print(f"  head pod ended ({head.proc.returncode}): {head.termination_message()}", flush=True)
        expect(head.proc.returncode != 0, "the head pod fails when its GCS dies")
        for w in workers:
            expect(w.alive() and w.pids("raylet") == raylets[w.name], f"{w.name} kept running while the GCS was down")
        head.start_raylaunch(nodes=3, command=["sleep", "100000"])

        def reconnected():
            s = c.status()
            if not s:
                return None
            alive = {n["node_id"] for n in s["nodes"] if n["state"] == "ALIVE"}
            new_head = [n for n in s["nodes"] if n["node_name"] == "training-0" and n["state"] == "ALIVE"
                        and n["node_id"] != ids["training-0"]]
            return s if ids["training-1"] in alive and ids["training-2"] in alive and new_head else None
        s = wait_for(reconnected, 240, "the workers' rows ALIVE, with their node ids, in the restarted GCS")
        for w in workers:
            expect(w.alive() and w.pids("raylet") == raylets[w.name], f"{w.name}: the same raylet after the restart")
        wait_for(lambda: "3/3 nodes alive" in open(head.log, errors="replace").read(), 240,
                 "the restarted head's barrier")
        print("  the GCS reloaded from Redis; the workers reconnected with their node ids and raylets", flush=True)

        mine = of_namespace(redis.keys(), NS)
        expect(mine, f"the GCS wrote keys of {NS}")
        if rc.version_tuple(version) >= TABLE_KEYS_SINCE:
            expect(NS not in mine and all(k.startswith(f"RAY{NS}@") for k in mine), "Ray >= 2.38: one hash per table")
        else:
            expect(list(mine) == [NS], f"Ray <= 2.37: one hash named {NS}", mine)
        for w in reversed(c.nodes):
            w.crash()

    everything = redis.keys()
    mine = of_namespace(everything, NS)
    print(f"  before: {len(mine)} keys ({sum(f for _, f in mine.values())} fields) of {NS}: "
          f"{', '.join(sorted(mine))}; {len(other_before)} of {OTHER_NS}", flush=True)
    r = c.raylaunch("redis-cleanup", "--storage-namespace", NS, "--dry-run",
                    env={k: v for k, v in ft_env(redis, version, NS).items() if k != "RAY_external_storage_namespace"})
    expect(r.rc == 0 and redis.keys() == everything, "--dry-run deletes nothing", r)
    r = c.raylaunch("redis-cleanup", "--storage-namespace", NS,
                    env={k: v for k, v in ft_env(redis, version, NS).items() if k != "RAY_external_storage_namespace"})
    expect(r.rc == 0, "redis-cleanup", r)
    fields = sum(f for _, f in mine.values())
    expect(f"deleted {len(mine)} key{'s' if len(mine) != 1 else ''} ({fields} field{'s' if fields != 1 else ''}) "
           f"of namespace \"{NS}\"" in r.out, "the count matches the keys the GCS wrote", r)
    after = redis.keys()
    expect(not of_namespace(after, NS), f"no key of {NS} is left", after)
    expect(after == {k: v for k, v in everything.items() if k not in mine},
           "every other key, the other namespace's included, is untouched", after)
    expect(of_namespace(after, OTHER_NS) == other_before, f"{OTHER_NS} is exactly as it was")
    print(f"  redis-cleanup: {r.out.strip().splitlines()[-1]}; {OTHER_NS} untouched ({len(other_before)} keys)",
          flush=True)


def test_namespace_with_at(version, work):
    """Ray's GCS aborts on a storage namespace with '@'; raylaunch refuses it before anything."""
    redis_env = {"RAY_REDIS_ADDRESS": "redis://127.0.0.1:6390", "RAY_external_storage_namespace": "a@b"}
    with Cluster(version, os.path.join(work, "at")) as c:
        node = c.add_node("training-0", head=True, env=redis_env, args=[f"--redis-password={PASSWORD}"]).start()
        wait_for(lambda: not node.alive(), 180, "ray start with namespace a@b to fail")
        said = node.tail(200)
        expect(node.proc.returncode != 0 and "shouldn't contain @" in said, "Ray's GCS aborts on a@b", said)
        r = c.raylaunch("plan", "--hostname", "training-0", "--nodes", "1", "--head-address", "127.0.0.1",
                        env=dict(redis_env, REDIS_PASSWORD=PASSWORD))
        lines = [line for line in r.err.splitlines() if line.startswith("raylaunch: ")]
        expect(r.rc == 64 and len(lines) == 1 and "without '@'" in lines[0], "raylaunch refuses a@b with 64", r)
    print("  Ray's GCS aborts on namespace a@b (\"shouldn't contain @\"); raylaunch refuses it (64)", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--release", required=True)
    a = p.parse_args()
    test_ft(a.release)
    if a.release == rc.current_release():
        test_namespace_with_at(a.release, rc.work_dir("at"))


if __name__ == "__main__":
    rc.main(main)
