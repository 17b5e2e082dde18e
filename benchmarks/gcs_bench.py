#!/usr/bin/python3
"""GCS benchmarks of raylaunch (issues 3 and 9), run by benchmarks/gcs; writes benchmarks/results/gcs.md.
Not a test: nothing here fails on a slow figure; the report says which targets were met.

1. Probe cost: `raylaunch probe liveness` (head: CheckAlive on 127.0.0.1) vs the same RPC from
   Debian's python3-grpcio, side by side: median wall (hyperfine), CPU and peak RSS (wait4).
2. Join detection: time from the last node's registration in the (fake) GCS to `raylaunch wait`
   returning, and the GetAllNodeInfo rate the GCS saw meanwhile.
3. Poll cost vs cluster size (1, 64, 1,024, 4,096 nodes): bytes per reply, client wall and CPU
   per poll (one reused channel, as `wait` polls), GCS-side CPU per poll.
4. Worker readiness at 4,096 nodes, per emulated Ray version (2.9, 2.40, 2.50): bytes the GCS
   sends per probe before (the request the previous client sent every version: node_selectors
   only) and after (exec probe; resident endpoint on a simulated 5 s kubelet period).
5. The light node RPC at 4,096 nodes (Ray 2.51): GetAllNodeAddressAndLiveness{ALIVE} beside
   GetAllNodeInfo, in one run against one GCS.

Usage: gcs_bench.py RAYLAUNCH FAKE_GCS POLL_BENCH BENCH_RUSAGE BARE_CLIENT READINESS_BENCH OUT.md
RAYLAUNCH_BASELINE=PATH (and RAYLAUNCH_BASELINE_LABEL) adds an older raylaunch to table 1, same run.
"""
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def out(*argv, env=None):
    return subprocess.run(argv, check=True, capture_output=True, text=True, env=env).stdout


class Fake:
    """A FAKE GCS process (tests/fakes/gcs) on a free loopback port."""

    def __init__(self, binary, work, name, *extra, env=None):
        self.binary = binary
        self.control = f"unix:{work}/{name}.sock"
        port_file = f"{work}/{name}.port"
        self.proc = subprocess.Popen([binary, "serve", "--port", "0", "--port-file", port_file,
                                      "--control", self.control, *extra], stderr=subprocess.DEVNULL, env=env)
        for _ in range(100):
            if os.path.exists(port_file):
                break
            time.sleep(0.05)
        self.port = int(open(port_file).read())
        self.address = f"127.0.0.1:{self.port}"

    def ctl(self, *args):
        return out(self.binary, "ctl", "--control", self.control, *args)

    def stats(self):
        return dict(line.split("=", 1) for line in self.ctl("stats").split())

    def reply_bytes(self):
        """Protobuf bytes of every reply the GCS sent since the last reset-stats."""
        return sum(int(v) for k, v in self.stats().items() if k.startswith("reply_bytes."))

    def cpu_ms(self):
        fields = open(f"/proc/{self.proc.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

    def close(self):
        try:
            self.ctl("quit")
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


RUSAGE = None  # benchmarks/rusage.cpp, set in main()


def make_pki(work):
    """A CA and a pod certificate for 127.0.0.1 (EC P-256), as tests/gcs/pki.sh makes them."""
    d = f"{work}/pki"
    os.makedirs(d, exist_ok=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    out("openssl", "req", "-x509", *ec, "-days", "2", "-subj", "/CN=bench ca", "-keyout", f"{d}/ca.key",
        "-out", f"{d}/ca.crt")
    out("openssl", "req", *ec, "-subj", "/CN=pod", "-keyout", f"{d}/pod.key", "-out", f"{d}/pod.csr")
    with open(f"{d}/pod.ext", "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n")
    out("openssl", "x509", "-req", "-in", f"{d}/pod.csr", "-CA", f"{d}/ca.crt", "-CAkey", f"{d}/ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", f"{d}/pod.ext", "-out", f"{d}/pod.crt")
    return {"RAY_USE_TLS": "1", "RAY_TLS_SERVER_CERT": f"{d}/pod.crt", "RAY_TLS_SERVER_KEY": f"{d}/pod.key",
            "RAY_TLS_CA_CERT": f"{d}/ca.crt"}


def rusage(runs, warmup, argv, env):
    return json.loads(out(RUSAGE, str(runs), str(warmup), *argv, env=env))


def bench_probe(rl, fake_bin, bare, work):
    fake = Fake(fake_bin, work, "probe")
    fake.ctl("add", "training-0", "--head")
    tls = make_pki(work)
    tls_fake = Fake(fake_bin, work, "probe-tls", "--tls-from-env", env=dict(os.environ, **tls))
    tls_fake.ctl("add", "training-0", "--head")
    env = dict(os.environ, HOSTNAME="training-0", RAYLAUNCH_RAY_PORT=str(fake.port))
    tls_flags = ["--ray-port", str(tls_fake.port), "--use-tls", "--tls-server-cert", tls["RAY_TLS_SERVER_CERT"],
                 "--tls-server-key", tls["RAY_TLS_SERVER_KEY"], "--tls-ca-cert", tls["RAY_TLS_CA_CERT"]]
    cmds = {"bare gRPC C++ CheckAlive client (static)": [bare, f"ipv4:{fake.address}"],
            "raylaunch probe liveness": [rl, "probe", "liveness"],
            "raylaunch probe liveness, mutual TLS": [rl, "probe", "liveness", *tls_flags],
            "python3-grpcio CheckAlive": [PY, f"{HERE}/probe_client.py", fake.address]}
    if os.environ.get("RAYLAUNCH_BASELINE"):  # an older build, measured in the same run for an A/B
        cmds = {**{k: v for k, v in cmds.items() if k != "python3-grpcio CheckAlive"},
                f"baseline: {os.environ.get('RAYLAUNCH_BASELINE_LABEL', 'an older raylaunch')} probe liveness":
                    [os.environ["RAYLAUNCH_BASELINE"], "probe", "liveness"],
                "python3-grpcio CheckAlive": cmds["python3-grpcio CheckAlive"]}
    if shutil.which("cc"):
        with open(f"{work}/empty.c", "w") as f:
            f.write("int main(void){return 0;}\n")
        subprocess.run(["cc", "-O2", "-static", "-s", "-o", f"{work}/empty", f"{work}/empty.c"], check=True)
        cmds = {"empty static binary (exec floor)": [f"{work}/empty"], **cmds}
    for name, argv in cmds.items():
        if subprocess.run(argv, env=env, capture_output=True).returncode != 0:
            raise SystemExit(f"{name} is not healthy against the fake GCS")
    hargs = ["hyperfine", "-N", "--warmup", "20", "--runs", "300", "--export-json", f"{work}/h.json"]
    for name, argv in cmds.items():
        hargs += ["-n", name, " ".join(argv)]
    subprocess.run(hargs, check=True, env=env, capture_output=True)
    wall = {r["command"]: r for r in json.load(open(f"{work}/h.json"))["results"]}
    rows = {}
    for name, argv in cmds.items():
        ru = rusage(200, 10, argv, env)
        rows[name] = {"wall_median": wall[name]["median"] * 1e3, "wall_mean": wall[name]["mean"] * 1e3,
                      "wall_sd": wall[name]["stddev"] * 1e3, **ru}
    ab = None
    if os.environ.get("RAYLAUNCH_BASELINE"):
        # Interleaved A/B on a shared machine: 10 rounds of 30 runs each, baseline then current, so
        # that load drifting during the run hits both alike; medians of the round medians.
        base = [os.environ["RAYLAUNCH_BASELINE"], "probe", "liveness"]
        cur = [rl, "probe", "liveness"]
        rounds = {"baseline": [], "current": []}
        for _ in range(10):
            for name, argv in (("baseline", base), ("current", cur)):
                rounds[name].append(rusage(30, 3, argv, env))
        ab = {name: {k: statistics.median(r[k] for r in rs) for k in ("wall_ms_median", "cpu_ms_median",
                                                                       "rss_mb_median")}
              for name, rs in rounds.items()}
    calls = fake.stats().get("calls.CheckAlive")
    fake.close()
    tls_fake.close()
    return rows, calls, ab


def bench_join(rl, fake_bin, work, nodes, trials):
    fake = Fake(fake_bin, work, f"join{nodes}")
    fake.ctl("fill", str(nodes), "training")
    last = f"training-{nodes - 1}"
    env = dict(os.environ, HOSTNAME="training-0")
    detect, polls, peaks = [], [], []
    for _ in range(trials):
        fake.ctl("kill", last)  # nodes-1 ALIVE; the last pod will (re-)register
        fake.ctl("reset-stats")
        p = subprocess.Popen([rl, "wait", "--address", fake.address, "--nodes", str(nodes), "--timeout", "60s"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(random.uniform(0.5, 1.5))
        registered_ns = int(fake.ctl("add", last).split("registered_ns=")[1])
        rc = p.wait()
        end = time.monotonic_ns()  # CLOCK_MONOTONIC, the fake's clock too
        if rc != 0:
            raise SystemExit(f"wait exited {rc}")
        stats = fake.stats()
        n = int(stats["calls.GetAllNodeInfo"])
        detect.append((end - registered_ns) / 1e6)
        polls.append(n)
        peaks.append(int(stats["max_get_all_per_second"]))
    fake.close()
    return {"nodes": nodes, "trials": trials, "median_ms": statistics.median(detect),
            "p90_ms": sorted(detect)[int(len(detect) * 0.9) - 1] if len(detect) >= 10 else max(detect),
            "max_ms": max(detect), "polls_median": statistics.median(polls), "peak_per_1s": max(peaks)}


def bench_poll(rl, fake_bin, poll_bin, work, sizes, polls):
    rows = []
    for n in sizes:
        fake = Fake(fake_bin, work, f"poll{n}", "--ray-version", "2.40.0")
        fake.ctl("fill", str(n), "training")
        cpu0 = fake.cpu_ms()
        r = json.loads(out(poll_bin, fake.address, str(polls)))
        r["gcs_cpu_ms_per_poll"] = (fake.cpu_ms() - cpu0) / (polls + 3)
        r["reply_bytes"] = int(fake.stats()["last_reply_bytes"])
        status = rusage(15, 2, [rl, "status", "--address", fake.address, "--output", "json"], os.environ)
        r["status_wall_ms"] = status["wall_ms_median"]
        r["status_cpu_ms"] = status["cpu_ms_median"]
        r["status_rss_mb"] = status["rss_mb_median"]
        rows.append(r)
        fake.close()
    return rows


def bench_readiness(rl, fake_bin, readiness_bin, work, nodes=4096, probes=120, period_ms=5000):
    """Bytes the GCS sends per worker readiness probe, per emulated Ray version."""
    rows = []
    me = "training-7"
    for version in ["2.9.0", "2.40.0", "2.50.0"]:
        fake = Fake(fake_bin, work, f"ready{version}", "--ray-version", version)
        fake.ctl("fill", str(nodes), "training")
        row = {"version": version}
        fake.ctl("reset-stats")
        for _ in range(5):  # the previous client's request: node_selectors only, whatever the version
            out(fake_bin, "nodes", "--address", fake.address, "--select-name", me)
        row["before"] = fake.reply_bytes() / 5
        env = dict(os.environ, HOSTNAME=me, RAYLAUNCH_NODES=str(nodes), RAYLAUNCH_HEAD_ADDRESS="127.0.0.1",
                   RAYLAUNCH_RAY_PORT=str(fake.port))
        fake.ctl("reset-stats")
        walls = []
        for _ in range(20):
            t0 = time.monotonic()
            subprocess.run([rl, "probe", "readiness"], env=env, check=True, capture_output=True)
            walls.append((time.monotonic() - t0) * 1e3)
        row["exec"] = fake.reply_bytes() / 20
        row["exec_wall_ms"] = statistics.median(walls)
        row["exec_calls"] = sum(int(v) for k, v in fake.stats().items() if k.startswith("calls.")) / 20
        fake.ctl("reset-stats")
        out(readiness_bin, fake.address, me, str(probes), str(period_ms))
        row["resident"] = fake.reply_bytes() / probes
        row["resident_tables"] = int(fake.stats().get("calls.GetAllNodeInfo", 0))
        rows.append(row)
        fake.close()
    return rows


def bench_light(fake_bin, poll_bin, work, nodes=4096, polls=50):
    """GetAllNodeInfo beside GetAllNodeAddressAndLiveness, one GCS (Ray 2.51), one run."""
    fake = Fake(fake_bin, work, "light", "--ray-version", "2.51.0")
    fake.ctl("fill", str(nodes), "training")
    rows = {}
    for kind in ["full", "light"]:
        fake.ctl("reset-stats")
        cpu0 = fake.cpu_ms()
        r = json.loads(out(poll_bin, fake.address, str(polls), kind))
        r["gcs_cpu_ms_per_poll"] = (fake.cpu_ms() - cpu0) / (polls + 3)
        r["reply_bytes"] = int(fake.stats()["last_reply_bytes"])
        rows[kind] = r
    fake.close()
    return rows


def main():
    global RUSAGE
    rl, fake_bin, poll_bin, RUSAGE, bare, readiness_bin, out_md = sys.argv[1:8]
    work = tempfile.mkdtemp(prefix="raylaunch-gcs-bench.")
    load_before = os.getloadavg()
    try:
        probe, probe_calls, ab = bench_probe(rl, fake_bin, bare, work)
        joins = [bench_join(rl, fake_bin, work, 4, 20), bench_join(rl, fake_bin, work, 4096, 5)]
        polls = bench_poll(rl, fake_bin, poll_bin, work, [1, 64, 1024, 4096], 50)
        ready = bench_readiness(rl, fake_bin, readiness_bin, work)
        light = bench_light(fake_bin, poll_bin, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()

    ours, py = probe["raylaunch probe liveness"], probe["python3-grpcio CheckAlive"]
    bare = probe["bare gRPC C++ CheckAlive client (static)"]
    j4 = joins[0]
    p4096 = polls[-1]
    L = ["# raylaunch GCS benchmarks (benchmarks/gcs)", "",
         f"- machine: {os.cpu_count()} cores, {platform.platform()}; load average "
         f"{load_before[0]:.2f} before, {load_after[0]:.2f} after (other work may share the cores)",
         f"- raylaunch: `{os.path.getsize(rl):,}` bytes, static; GCS: the FAKE GCS of tests/fakes/gcs (gRPC C++ 1.51, "
         "sync server), on loopback", ""]
    if max(load_before[0], load_after[0]) > os.cpu_count() * 0.75:
        L += [f"**The machine was busy** (load average above {os.cpu_count() * 0.75:g} on {os.cpu_count()} cores): "
              "absolute wall times are inflated, even the exec floor's; compare rows of this run, and the "
              "interleaved A/B, not these figures with another run's.", ""]
    L += [
         "## 1. Probe cost: `raylaunch probe liveness` (head) vs a Python gRPC client, same RPC", "",
         "Empty `CheckAlive` to the GCS on 127.0.0.1. Wall: hyperfine -N, 20 warm-ups, 300 runs. "
         "CPU (user+system, all threads) and peak RSS: wait4 rusage from a tiny static parent "
         "(benchmarks/rusage.cpp), 200 runs. raylaunch is linked with the secure gRPC (OpenSSL); the "
         "mutual-TLS row reads and checks the three PEM files and does a full TLS 1.3 handshake per probe "
         "(EC P-256 certificates) against a fake GCS serving mTLS.", "",
         "| command | wall median | wall mean ± σ | CPU median | peak RSS median |", "|---|---|---|---|---|"]
    for name, r in probe.items():
        L.append(f"| {name} | {r['wall_median']:.2f} ms | {r['wall_mean']:.2f} ± {r['wall_sd']:.2f} ms | "
                 f"{r['cpu_ms_median']:.2f} ms | {r['rss_mb_median']:.1f} MB |")
    L += ["", f"Python ÷ raylaunch: **{py['wall_median'] / ours['wall_median']:.1f}×** wall, "
          f"**{py['cpu_ms_median'] / max(ours['cpu_ms_median'], 0.01):.1f}×** CPU, "
          f"{py['rss_mb_median'] / ours['rss_mb_median']:.1f}× RSS ({probe_calls} CheckAlive calls served). "
          f"raylaunch ÷ the bare gRPC C++ client: {ours['wall_median'] / bare['wall_median']:.2f}× wall "
          f"({ours['wall_median'] - bare['wall_median']:+.2f} ms; raylaunch also parses its CLI and settings and "
          "works out the pod's identity). On this shared 2-core machine a median moves by up to ±0.7 ms "
          "between runs: compare rows of one run.", ""]
    if ab:
        b_, c_ = ab["baseline"], ab["current"]
        L += [f"A/B against {os.environ.get('RAYLAUNCH_BASELINE_LABEL', 'an older build')} "
              f"(`{os.path.getsize(os.environ['RAYLAUNCH_BASELINE']):,}` bytes), interleaved: 10 rounds of 30 runs "
              "each, medians of the round medians:", "",
              "| build | wall | CPU | peak RSS |", "|---|---|---|---|",
              f"| baseline | {b_['wall_ms_median']:.2f} ms | {b_['cpu_ms_median']:.2f} ms | {b_['rss_mb_median']:.1f} MB |",
              f"| this build | {c_['wall_ms_median']:.2f} ms | {c_['cpu_ms_median']:.2f} ms | "
              f"{c_['rss_mb_median']:.1f} MB |", ""]
    L += [
          "## 2. Join detection: last registration → `raylaunch wait` returns", "",
          "The fake GCS holds N-1 ALIVE nodes; `wait --nodes N` starts; 0.5–1.5 s later the last pod registers "
          "(the fake stamps CLOCK_MONOTONIC); the time is taken when the `wait` process has exited.", "",
          "| nodes | trials | median | p90 | max | GetAllNodeInfo per wait (median) | most GetAllNodeInfo in any 1 s |",
          "|---|---|---|---|---|---|---|"]
    for j in joins:
        L.append(f"| {j['nodes']:,} | {j['trials']} | {j['median_ms']:.0f} ms | {j['p90_ms']:.0f} ms | "
                 f"{j['max_ms']:.0f} ms | {j['polls_median']:.0f} | {j['peak_per_1s']} |")
    L += ["", "## 3. Poll cost vs cluster size", "",
          "`gcs_poll_bench`: 50 polls on one channel after 3 warm-ups, as `wait` polls (empty request, decode, "
          "count). Client CPU is the whole process (gRPC threads included). The poll's wall time includes the "
          "fake GCS building the reply, which copies every node into it as Ray 2.9's handler does (its CPU is "
          "the next column); on 2 shared cores the two also compete. "
          "`status` is the whole `raylaunch status --output json` process (15 runs).", "",
          "| nodes | reply bytes | bytes/node | poll wall median (p90) | client CPU/poll | fake GCS CPU/poll | "
          "`status` wall / CPU / RSS |", "|---|---|---|---|---|---|---|"]
    for r in polls:
        L.append(f"| {r['nodes']:,} | {r['reply_bytes']:,} | {r['reply_bytes'] / max(r['nodes'], 1):.0f} | "
                 f"{r['wall_ms_median']:.2f} ms ({r['wall_ms_p90']:.2f}) | {r['cpu_ms_per_poll']:.2f} ms | "
                 f"{r['gcs_cpu_ms_per_poll']:.2f} ms | {r['status_wall_ms']:.1f} ms / {r['status_cpu_ms']:.1f} ms / "
                 f"{r['status_rss_mb']:.1f} MB |")
    a, b = polls[-2], polls[-1]
    per_node_us = (b["wall_ms_median"] - a["wall_ms_median"]) / (b["nodes"] - a["nodes"]) * 1e3
    per_node_cpu_us = (b["cpu_ms_per_poll"] - a["cpu_ms_per_poll"]) / (b["nodes"] - a["nodes"]) * 1e3
    L += ["", f"Growth: linear in the table size — {b['reply_bytes'] / b['nodes']:.0f} bytes per node per reply; "
          f"from 1,024 to 4,096 nodes each extra node adds {per_node_us:.2f} µs of poll wall time and "
          f"{per_node_cpu_us:.2f} µs of client CPU. A real GCS also lists up to 1,000 DEAD nodes "
          "(maximum_gcs_dead_node_cached_count), which cost the same per row.", "",
          "## 4. Worker readiness at 4,096 nodes: what the GCS sends per probe, per Ray version", "",
          "The fake GCS plays each version's request handling with 4,096 ALIVE nodes; bytes are the protobuf "
          "payload of every reply the GCS sent (CheckAlive included), per probe. *Before*: the request the "
          "previous client sent to every version (`node_selectors` only, a field Ray <= 2.48 ignores), replayed "
          "by the fake's client. *Exec probe*: `raylaunch probe readiness` (an empty CheckAlive for the "
          "version, then the layout that version filters on), 20 runs. *Resident*: the `run` health endpoint's "
          "Prober, 120 probes 5 s apart on a simulated clock (10 minutes of a kubelet's readinessProbe).", "",
          "| Ray | layout sent (after) | before | exec probe | resident endpoint | GetAllNodeInfo calls in 10 min (resident) | "
          "exec probe wall median |", "|---|---|---|---|---|---|---|"]
    layouts = {"2.9.0": "none (2.9 filters nothing)", "2.40.0": "`filters.node_name` (field 4)",
               "2.50.0": "`node_selectors.node_name` (field 2)"}
    for r in ready:
        L.append(f"| {r['version']} | {layouts[r['version']]} | {r['before']:,.0f} B | {r['exec']:,.0f} B | "
                 f"{r['resident']:,.0f} B | {r['resident_tables']} | {r['exec_wall_ms']:.1f} ms |")
    r240 = next(r for r in ready if r["version"] == "2.40.0")
    r29 = next(r for r in ready if r["version"] == "2.9.0")
    L += ["", f"At 4,096 workers probing every 5 s on Ray 2.40, the GCS sent {r240['before'] * 4096 / 5 / 1e9:.2f} "
          f"GB/s before and sends {r240['exec'] * 4096 / 5 / 1e6:.2f} MB/s with exec probes after. On Ray <= 2.35 "
          f"nothing filters: an exec probe still costs the whole table ({r29['exec']:,.0f} B); the resident endpoint "
          f"asks at most every 30 s (+0-20 % jitter), {r29['resident']:,.0f} B per probe on average.", "",
          "## 5. The light node RPC at 4,096 nodes (Ray ≈2.51+)", "",
          "One fake GCS playing Ray 2.51 with 4,096 ALIVE nodes, `gcs_poll_bench`: 50 polls on one channel after "
          "3 warm-ups each, decode and count included. The join barrier polls the light call and reads names "
          "(GetAllNodeInfo) on its first poll, every 10 s, and to confirm a join.", "",
          "| call | reply bytes | poll wall median (p90) | client CPU/poll | fake GCS CPU/poll |",
          "|---|---|---|---|---|"]
    for kind, name in [("full", "GetAllNodeInfo (empty request)"),
                       ("light", "GetAllNodeAddressAndLiveness{state_filter=ALIVE}")]:
        r = light[kind]
        L.append(f"| {name} | {r['reply_bytes']:,} | {r['wall_ms_median']:.2f} ms ({r['wall_ms_p90']:.2f}) | "
                 f"{r['cpu_ms_per_poll']:.2f} ms | {r['gcs_cpu_ms_per_poll']:.2f} ms |")
    f_, l_ = light["full"], light["light"]
    L += ["", f"The light poll is {f_['reply_bytes'] / l_['reply_bytes']:.1f}× smaller, "
          f"{f_['wall_ms_median'] / l_['wall_ms_median']:.1f}× faster and costs the GCS "
          f"{f_['gcs_cpu_ms_per_poll'] / max(l_['gcs_cpu_ms_per_poll'], 0.01):.1f}× less CPU (a real GCS also "
          "skips serializing resources, labels and snapshots for it).", "",
          "## Targets", "",
          "| target | result |", "|---|---|",
          f"| probe ≤ 5 ms median | {ours['wall_median']:.2f} ms: {'met' if ours['wall_median'] <= 5 else 'NOT met'} |",
          f"| worker readiness O(1) on Ray >= 2.36 | {r240['exec']:,.0f} B per exec probe on 2.40: "
          f"{'met' if r240['exec'] < 4096 else 'NOT met'} |",
          f"| probe ≥ 15× faster than Python | {py['wall_median'] / ours['wall_median']:.1f}×: "
          f"{'met' if py['wall_median'] / ours['wall_median'] >= 15 else 'NOT met'} |",
          f"| probe ≤ 15 MB RSS | {ours['rss_mb_max']:.1f} MB max: {'met' if ours['rss_mb_max'] <= 15 else 'NOT met'} |",
          f"| join detection ≤ 0.5 s median | {j4['median_ms']:.0f} ms: {'met' if j4['median_ms'] <= 500 else 'NOT met'} |",
          f"| ≤ 4 RPC/s on the GCS | at most {max(j['peak_per_1s'] for j in joins)} in any 1 s window: "
          f"{'met' if max(j['peak_per_1s'] for j in joins) <= 4 else 'NOT met'} |",
          f"| ≤ 25 ms per poll at 4,096 nodes | client CPU {p4096['cpu_ms_per_poll']:.1f} ms: "
          f"{'met' if p4096['cpu_ms_per_poll'] <= 25 else 'NOT met'}; wall {p4096['wall_ms_median']:.1f} ms, of which "
          f"the fake GCS spends {p4096['gcs_cpu_ms_per_poll']:.1f} ms CPU building the reply |", ""]
    with open(out_md, "w") as f:
        f.write("\n".join(L))
    print("\n".join(L))


if __name__ == "__main__":  # survive_bench.py imports Fake from here
    main()
