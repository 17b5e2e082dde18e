#!/usr/bin/env python3
"""The GCS compatibility matrix: raylaunch's GCS client against the real GCS of one pinned Ray
release (tests/ray-releases.txt), on a real 3-node cluster in private namespaces.

    test_matrix.py --release 2.9.3 [--results DIR]

Each check is one row of docs/compat.md (scripts/gcs-compat writes it from DIR/<release>.json):
wait (N nodes; a dead node not counted; a restarted node counted once), status, status --count,
probes as head and as worker, the light node RPC, the bytes the GCS sends per worker readiness
probe, token authentication where the release has it, TLS with Ray's own RAY_USE_TLS on the
current release. Every check runs; the test fails if any did (exit 1), after writing the results.
A release that is not installed fails the test with scripts/ray-venvs' reason.
"""
import argparse
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import raycluster as rc  # noqa: E402
from raycluster import Cluster, Failure, wait_for  # noqa: E402
import checks_auth  # noqa: E402

LIGHT_RPC_SINCE = (2, 51)     # GetAllNodeAddressAndLiveness (ray-project/ray#56474)
FILTER_SINCE = (2, 36)        # GetAllNodeInfoRequest can ask for one node_name (#47213)
SELECTORS_SINCE = (2, 49)     # ... in node_selectors (field 2) instead of filters (field 4) (#55115)


class Matrix:
    """The rows of one release: check name -> {"result": text, "ok": bool}."""

    def __init__(self, version):
        self.version = version
        self.v = rc.version_tuple(version)
        self.rows = {}
        self.notes = {}

    def check(self, name, fn):
        """Runs one check: `fn` returns its result (a line), or (result, short) where the table's
        cell should say more than "ok"; a Failure fails the row, and the test at the end."""
        print(f"  {name} ...", flush=True)
        try:
            result = fn()
            result, short = result if isinstance(result, tuple) else (result, "ok")
            self.rows[name] = {"result": result, "short": short, "ok": True}
            print(f"  {name}: {result}", flush=True)
        except Failure as e:
            self.rows[name] = {"result": f"FAILED: {str(e).splitlines()[0]}", "short": "FAILED", "ok": False}
            print(f"  {name}: FAILED: {e}", flush=True)

    def na(self, name, why, short="n/a"):
        self.rows[name] = {"result": f"n/a: {why}", "short": short, "ok": True}

    def failed(self):
        return [n for n, r in self.rows.items() if not r["ok"]]


def expect(cond, message, result=None):
    if not cond:
        raise Failure(message + (f"\n{result!r}" if result is not None else ""))


def one_error_line(r):
    """stderr's `raylaunch: error:` lines: exactly one (a wait also logs progress before it)."""
    lines = [line for line in r.err.splitlines() if line.startswith("raylaunch: error:")]
    expect(len(lines) == 1, "expected exactly one error line", r)
    return lines[0]


# --- the checks on a running 3-node cluster --------------------------------------------------

def worker_probe(c, kind, node, env=None):
    return c.raylaunch("probe", kind, "--hostname", node.name, "--nodes", "3",
                       "--head-address", c.gcs_address, "--node-manager-port", str(node.node_manager_port),
                       env=env)


def head_probe(c, kind, env=None):
    return c.raylaunch("probe", kind, "--hostname", "training-0", "--nodes", "3",
                       "--head-address", c.gcs_address, "--ray-port", str(c.gcs_port), env=env)


def check_probes(m, c, head, worker):
    def probe(kind, role):
        def run():
            r = head_probe(c, kind) if role == "head" else worker_probe(c, kind, worker)
            expect(r.rc == 0 and len(r.text.splitlines()) == 1, f"probe {kind} as {role}: not healthy in one line", r)
            if role == "head":
                expect(f"(Ray {m.version})" in r.out, "the head probe names the GCS's version", r)
            return "0 healthy: " + r.out.strip().split(": healthy: ", 1)[-1]
        return run
    for kind in ("liveness", "readiness"):
        for role in ("head", "worker"):
            m.check(f"probe {kind} as {role}", probe(kind, role))


def light_rpc(c):
    """GetAllNodeAddressAndLiveness{state_filter=ALIVE} asked directly (python3-grpcio, raw bytes):
    served, or UNIMPLEMENTED. Independent of raylaunch's own client."""
    import grpc
    with grpc.insecure_channel(c.gcs_address) as channel:
        call = channel.unary_unary("/ray.rpc.NodeInfoGcsService/GetAllNodeAddressAndLiveness",
                                   request_serializer=lambda b: b, response_deserializer=lambda b: b)
        try:
            reply = call(b"\x18\x00", timeout=10)  # field 3 (state_filter) = ALIVE
            return True, len(reply)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNIMPLEMENTED:
                return False, 0
            raise Failure(f"GetAllNodeAddressAndLiveness: {e.code().name}: {e.details()}")


def check_light_rpc(m, c):
    def run():
        served, size = light_rpc(c)
        expected = m.v >= LIGHT_RPC_SINCE
        expect(served == expected, f"light RPC served={served}, expected {expected} for Ray {m.version}")
        # raylaunch's wait polls it between full polls where served, and falls back at once where
        # not (a wait that cannot end: it keeps polling until its deadline).
        r = c.raylaunch("wait", "--address", c.gcs_address, "--nodes", "4", "--timeout", "3s", "--log-level", "debug")
        expect(r.rc == 75, "wait --nodes 4 (debug) on 3 nodes", r)
        fell_back = "has no GetAllNodeAddressAndLiveness" in r.err
        expect(fell_back != served, "wait's fallback line does not match what the GCS serves", r)
        if served:
            return f"served ({size} B for 3 ALIVE nodes); raylaunch polls it", f"served ({size} B)"
        return "UNIMPLEMENTED; raylaunch falls back to GetAllNodeInfo", "UNIMPLEMENTED: falls back"
    m.check("light node RPC (GetAllNodeAddressAndLiveness)", run)


def check_readiness_bytes(m, c, worker):
    def run():
        counter = rc.ByteCounter(c.head_ip, c.gcs_port)
        via = f"127.0.0.1:{counter.port}"
        probes = []
        for _ in range(3):
            counter.reset()
            r = c.raylaunch("probe", "readiness", "--hostname", worker.name, "--nodes", "3", "--head-address", via)
            expect(r.rc == 0, "worker readiness through the byte counter", r)
            probes.append(counter.total())
        counter.reset()
        r = c.raylaunch("status", "--address", via, "--output", "json")
        expect(r.rc == 0, "status through the byte counter", r)
        table = counter.total()
        rows = len(r.json()["nodes"])
        per_probe = min(probes)
        layout = ("node_selectors" if m.v >= SELECTORS_SINCE else "filters.node_name" if m.v >= FILTER_SINCE
                  else "none: the whole table")
        if m.v >= FILTER_SINCE:
            expect(per_probe < table, f"one row should cost less than the table ({per_probe} vs {table} B)")
        else:
            expect(per_probe >= table, f"Ray <= 2.35 cannot filter: expected the whole table ({per_probe} vs {table} B)")
        m.notes["readiness_bytes"] = {"probe": per_probe, "table": table, "rows": rows}
        return (f"{per_probe} B per probe ({layout}); the whole table is {table} B at {rows} nodes",
                f"{per_probe} B (table {table} B)")
    m.check("worker readiness: bytes the GCS sends per probe", run)


def check_dead_node(m, c, dead):
    def run():
        t0 = time.monotonic()
        dead.stop()
        row = wait_for(lambda: next((n for n in c.rows(dead.name) if n["state"] == "DEAD"), None), 90,
                       f"{dead.name} DEAD after a graceful stop")
        took = time.monotonic() - t0
        r = c.raylaunch("status", "--address", c.gcs_address, "--count")
        expect(r.rc == 0 and r.out.startswith("2 alive"), "status --count after a node stopped", r)
        r = c.raylaunch("wait", "--address", c.gcs_address, "--nodes", "3", "--timeout", "3s",
                        "--hostname", "training-0")
        expect(r.rc == 75, "wait --nodes 3 with one node DEAD: 75", r)
        expect(f"missing: {dead.name}" in one_error_line(r), "the timeout names the dead node", r)
        r = worker_probe(c, "readiness", dead)
        expect(r.rc == 1 and "is DEAD" in r.err, "the stopped node's readiness: DEAD", r)
        return (f"stopped (SIGTERM): DEAD in {took:.0f}s ({row['death_reason'] or 'no reason'}); "
                f"status --count 2; wait --nodes 3 exits 75 naming it")
    m.check("wait/status: a dead node is not counted", run)


def check_restarted_node(m, c, node):
    def run():
        old = {n["node_id"] for n in c.rows(node.name, alive=True)}
        t_crash = time.time()
        node.vanish()                        # the pod is gone, and its IP with it
        node.ip = f"{rc.SUBNET}.{200 + node.slot % 40}"  # the recreated pod's new IP
        node.start()
        s = c.wait_alive([node.name], fresh_from=old)
        m.notes["stale_row_new_ip"] = {"crash": t_crash, "old": sorted(old)}
        stale = [n for n in s["nodes"] if n["node_name"] == node.name and n["node_id"] in old]
        expect(stale and stale[0]["state"] == "ALIVE",
               "the old row was no longer ALIVE when the new one registered: nothing to count twice", s)
        expect(s["alive"] == 2 and s["alive_entries"] == 3, "status: 2 pods alive from 3 ALIVE rows", s)
        r = c.raylaunch("status", "--address", c.gcs_address, "--count", "--output", "json")
        expect(r.rc == 0 and r.json()["alive"] == 2, "status --count counts the restarted pod once", r)
        r = c.raylaunch("wait", "--address", c.gcs_address, "--nodes", "2", "--timeout", "60s",
                        "--hostname", "training-0")
        expect(r.rc == 0 and f"counted once despite a stale ALIVE entry: {node.name}" in r.err,
               "wait --nodes 2 counts the restarted pod once", r)
        r = c.raylaunch("wait", "--address", c.gcs_address, "--nodes", "3", "--timeout", "2s")
        expect(r.rc == 75, "wait --nodes 3 does not count the stale row", r)
        return "restarted at a new IP, old row still ALIVE: status 2 alive of 3 ALIVE rows, --count 2, wait counts it once"
    m.check("wait/status: a restarted node is counted once", run)


def stale_row_seconds(c, name, old_ids, since, timeout=180):
    """How long the GCS kept `old_ids` ALIVE after `since` (time.time() of the crash)."""
    row = wait_for(lambda: next((n for n in c.rows(name) if n["node_id"] in old_ids and n["state"] == "DEAD"), None),
                   timeout, f"{name}'s old row DEAD", interval=0.5)
    return row["end_time_ms"] / 1000.0 - since, row["death_reason"]


def check_stale_rows(m, c, node):
    """The current release only: how long a crashed pod's ALIVE row lasts with Ray's default health
    check (health_check_initial_delay_ms 5000, period 3000, timeout 10000, failure_threshold 5)."""
    def run():
        info = m.notes.get("stale_row_new_ip")
        expect(info, "needs the restarted node of the previous check")
        new_ip, why_new = stale_row_seconds(c, node.name, set(info["old"]), info["crash"])
        old = {n["node_id"] for n in c.rows(node.name, alive=True)}
        t_crash = time.time()
        node.crash()                         # the container restarts; the pod keeps its IP
        node.start()
        c.wait_alive([node.name], fresh_from=old)
        same_ip, why_same = stale_row_seconds(c, node.name, old, t_crash)
        m.notes["stale_rows"] = {"same_ip_s": round(same_ip, 1), "new_ip_s": round(new_ip, 1)}
        return (f"a crashed pod's row stays ALIVE {same_ip:.0f}s when it comes back on the same IP, "
                f"{new_ip:.0f}s when its IP is gone ({why_new})", f"{same_ip:.0f}s same IP, {new_ip:.0f}s new IP")
    m.check("stale ALIVE row of a crashed pod (default health check)", run)


def matrix_cluster(m, work):
    with Cluster(m.version, os.path.join(work, "plain")) as c:
        head = c.add_node("training-0", head=True).start()
        c.wait_alive(["training-0"])
        # The barrier is waiting before the workers exist, as on a real head.
        waiting = c.raylaunch_async("wait", "--address", c.gcs_address, "--nodes", "3", "--timeout", "300s",
                                    "--hostname", "training-0")
        w1 = c.add_node("training-1").start()
        w2 = c.add_node("training-2").start()

        def joined():
            r = waiting.result()
            expect(r.rc == 0 and "3/3 nodes alive after" in r.err, "wait --nodes 3 while the workers start", r)
            return "0 when 3 nodes are ALIVE: " + next(line for line in r.err.splitlines() if "3/3" in line).split("] ")[-1]
        m.check("wait --nodes 3", joined)

        def status():
            r = c.raylaunch("status", "--address", c.gcs_address)
            alive = [line for line in r.out.splitlines() if re.match(r"\S+ +\S+ +ALIVE ", line)]
            expect(r.rc == 0 and len(alive) == 3 and alive[0].startswith("training-0"), "status: 3 ALIVE rows, head first", r)
            s = c.status()
            expect(s["alive"] == 3 and s["dead"] == 0, "status --output json: 3 alive", s)
            if m.v >= FILTER_SINCE:
                expect(s["total"] == 3, "the GCS's own total (Ray 2.36+)", s)
            return "0: 3 ALIVE rows, head first; JSON alive 3" + (", total 3 from the GCS" if m.v >= FILTER_SINCE else "")
        m.check("status", status)

        def count():
            r = c.raylaunch("status", "--address", c.gcs_address, "--count")
            expect(r.rc == 0 and r.out.startswith("3 alive"), "status --count", r)
            return "0: " + r.out.strip()
        m.check("status --count", count)
        check_probes(m, c, head, w1)
        check_light_rpc(m, c)
        check_readiness_bytes(m, c, w1)

        def token_to_open_gcs():
            r = c.raylaunch("status", "--address", c.gcs_address, "--count", env={"RAY_AUTH_TOKEN": "not-needed-here"})
            expect(r.rc == 0, "a token sent to a GCS without token auth is ignored", r)
            return "accepted (a GCS without token auth ignores the header)"
        m.check("token sent to a GCS without auth", token_to_open_gcs)
        check_dead_node(m, c, w2)
        check_restarted_node(m, c, w1)
        if m.version == rc.current_release():
            check_stale_rows(m, c, w1)
        else:
            m.na("stale ALIVE row of a crashed pod (default health check)",
                 f"measured on the current release ({rc.current_release()})", short="-")


def main_matrix():
    p = argparse.ArgumentParser()
    p.add_argument("--release", required=True)
    p.add_argument("--results", default=os.environ.get("RAYLAUNCH_COMPAT_RESULTS", ""))
    p.add_argument("--only", choices=["plain", "token", "tls"], help="one group of checks (while working on it)")
    a = p.parse_args()
    m = Matrix(a.release)
    t0 = time.monotonic()
    try:
        rc.venv(a.release)  # NotInstalled: reported in the results and the test fails
    except rc.NotInstalled as e:
        m.rows["installed"] = {"result": f"FAILED: not installed: {e}", "ok": False}
        write(a.results, m, time.monotonic() - t0)
        raise
    work = rc.work_dir(f"compat-{a.release}")
    if a.only in (None, "plain"):
        matrix_cluster(m, work)
    if a.only in (None, "token"):
        checks_auth.token_checks(m, work)
    if a.only not in (None, "tls"):
        pass
    elif a.release == rc.current_release():
        checks_auth.tls_checks(m, work)
    else:
        for row in ("TLS (RAY_USE_TLS): Ray's own mutual TLS", "TLS: a plaintext client against Ray's TLS"):
            m.na(row, f"checked on the current release ({rc.current_release()})", short="-")
    write(a.results, m, time.monotonic() - t0)
    if m.failed():
        raise Failure(f"Ray {a.release}: failed: {', '.join(m.failed())}")


def write(results_dir, m, seconds):
    if not results_dir:
        return
    os.makedirs(results_dir, exist_ok=True)
    with open(os.path.join(results_dir, f"{m.version}.json"), "w") as f:
        json.dump({"release": m.version, "seconds": round(seconds), "rows": m.rows, "notes": m.notes,
                   "finished": time.strftime("%Y-%m-%d %H:%M:%S")}, f, indent=1)


if __name__ == "__main__":
    rc.main(main_matrix)
