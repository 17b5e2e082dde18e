"""Writes benchmarks/results/gcs-scale.md from what gcs_scale_bench.py measured: the whole cluster
after its join (every pod probing, every worker watching), raylaunch beside KubeRay's probe, then
each ask per call and per pod, then how the load generator and the GCS fared.
  gcs_scale_report.py RESULTS.json [OUT.md]   (rewrites the report from a run's measurements)"""
import json
import os
import platform
import statistics
from datetime import datetime

LABELS = {
    "barrier": "raylaunch join barrier",
    "readiness": "raylaunch worker readiness",
    "watch": "raylaunch head watch",
    "head-probe": "raylaunch head probes",
    "kuberay-worker": "KubeRay worker probe",
    "kuberay-head": "KubeRay head probe",
}
RAYLAUNCH_PROBES = ("readiness", "head-probe")
KUBERAY_PROBES = ("kuberay-worker", "kuberay-head")


def num(x):
    """About 3 significant digits, without exponents."""
    if x is None or x != x:
        return "–"
    a = abs(x)
    if a >= 100:
        return f"{x:,.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    if a >= 0.001:
        return f"{x:.3g}"
    return "0" if a == 0 else f"{x:.6f}"


def size(b):
    if b is None:
        return "–"
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:.0f} B"


def pods(who, n):
    return max(n - 1, 0) if who == "workers" else 1


def cluster(result, modes, asks):
    """GCS CPU ms per second and bytes per second of `modes` for the whole cluster."""
    who = {a[0]: a[4] for a in asks}
    by = {a["mode"]: a for a in result["asks"]}
    cpu = sum(max(by[m]["cpu_ms_per_call"], 0) * by[m]["cadence"] * pods(who[m], result["nodes"]) for m in modes)
    sent = sum(by[m]["bytes_per_call"] * by[m]["cadence"] * pods(who[m], result["nodes"]) for m in modes)
    return cpu, sent


def header(meta, params):
    when = datetime.fromtimestamp(meta["started"]).strftime("%Y-%m-%d %H:%M")
    tree = "" if meta["commit"] in meta["raylaunch"] else ", working tree " + meta["commit"]
    env = " ".join(f"{k}={v}" for k, v in (("RELEASES", " ".join(params["releases"])),
                                           ("NODES", " ".join(str(n) for n in params["nodes"]))))
    return [
        "# raylaunch's barrier, readiness and head watch on a real GCS of 4 to 4,096 nodes, beside KubeRay's probe",
        "",
        f"One run, {when}, {meta['raylaunch']}{tree}, "
        f"{platform.node()}: {os.cpu_count()} cores "
        f"({platform.machine()}) shared with other work, load average {' '.join(meta['load_start'])} at the start and "
        f"{' '.join(meta['load_end'])} at the end; {meta['took_s'] / 60:.0f} min. Command: `benchmarks/gcs_scale` "
        f"(as root; `{env}`). Each release's own `gcs_server` binary (its virtualenv from scripts/ray-venvs), "
        "started with the flags `ray start --head` gives it, in private namespaces on loopback.",
        "",
        "How: `gcs_scale_nodes` (the load generator, not what is measured) registers N nodes with `RegisterNode` and "
        "answers the GCS's health check of each (every 3 s) and its resource-load pull (every 1 s), so every row stays "
        "ALIVE and the GCS does its own per-node work. Rows are a p4de raylet's (CPU, GPU, memory, object store, "
        "accelerator, labels): ~460 bytes each. Then `gcs_scale_client` asks as ONE pod does, through raylaunch's "
        "own code (`wait_for_nodes` over a `GcsNodeSource`, `Prober`, `HeadWatch`) or as Ray's dashboard agent "
        f"asks for KubeRay's probes (`CheckAlive` with the node), at a duty cycle of {params['duty']:.0%} (each call "
        "followed by a pause as long), for "
        f"{params['windows']} windows ({params['large_windows']} from 1,024 nodes) of {params['window_s']:g} s, "
        "each between two windows of as long at rest. "
        "GCS CPU is utime + stime of /proc/PID/stat (every thread; 10 ms ticks) in the window less its rate in "
        "the two rest windows beside it, per call; the figures are medians of the windows. Bytes are what the "
        "GCS sends (gRPC frames, HTTP/2 "
        "included), counted by a relay: a run of many calls less a run of few. A pod's cost per second is the "
        "cost per call times the call's cadence in a pod; the cluster's, times the pods that ask.",
        "",
    ]


def per_call_tables(results, asks):
    cadence_note = {a[0]: a[3] for a in asks}
    lines = []
    for release in dict.fromkeys(r["release"] for r in results):
        lines += [f"## Ray {release}: one pod, per call", "",
                  "| nodes | ask | RPCs | GCS CPU per call (ms) | windows' range | GCS at rest → asked (ms/s) "
                  "| bytes the GCS sends per call | per node | calls per second in a pod "
                  "| GCS CPU per second, one pod (ms/s) |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for r in (x for x in results if x["release"] == release):
            if r["error"] and not r["asks"]:
                lines.append(f"| {r['nodes']} | **not measured**: {r['error'][:300]} | | | | | | | | |")
                continue
            for a in r["asks"]:
                lo, hi = a["cpu_ms_per_call_range"]
                measured = " (its own pacing)" if cadence_note[a["mode"]] is None else ""
                lines.append(
                    f"| {r['nodes']:,} | {LABELS[a['mode']]} | {a['rpcs_per_call']} | {num(a['cpu_ms_per_call'])} | "
                    f"{num(lo)} – {num(hi)} | {num(a['idle_ms_per_s'])} → {num(a['busy_ms_per_s'])} | "
                    f"{size(a['bytes_per_call'])} | "
                    f"{num(a['bytes_per_call'] / r['nodes'])} B | {num(a['cadence'])}{measured} | "
                    f"{num(max(a['cpu_ms_per_call'], 0) * a['cadence'])} |")
            if r["error"]:
                lines.append(f"| {r['nodes']} | **stopped**: {r['error'][:300]} | | | | | | | | |")
        lines.append("")
    return lines


def cluster_table(results, asks):
    lines = ["## The whole cluster: what probing and watching cost the GCS after the join", "",
             "GCS CPU in ms per second (1,000 = one core) and bytes the GCS sends per second, for a cluster of "
             "N pods: raylaunch's probes (every worker's readiness, the head's liveness and readiness) against "
             "KubeRay's (every pod's liveness and readiness); raylaunch's head watch (every worker; KubeRay has "
             "none) beside them; the barrier runs on the head only, until all have joined. Figures above 1,000 "
             "ms/s are projections from the cost per call: Ray 2.60 serves the node table on one thread "
             "(`node_manager_io` in /proc/PID/task), so a GCS asked for more than that thread can do falls behind "
             "(slow answers, timed-out probes) instead.", "",
             "| Ray | nodes | GCS at rest | raylaunch probes | KubeRay probes | raylaunch ÷ KubeRay | head watch "
             "| probes + watch ÷ KubeRay | bytes/s: raylaunch probes / watch / KubeRay | barrier while joining |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        modes = {a["mode"] for a in r["asks"]}
        if not set(RAYLAUNCH_PROBES + KUBERAY_PROBES + ("barrier", "watch")) <= modes:
            continue
        rl_cpu, rl_bytes = cluster(r, RAYLAUNCH_PROBES, asks)
        kr_cpu, kr_bytes = cluster(r, KUBERAY_PROBES, asks)
        w_cpu, w_bytes = cluster(r, ("watch",), asks)
        b_cpu, b_bytes = cluster(r, ("barrier",), asks)
        idle = statistics.median(a["idle_ms_per_s"] for a in r["asks"])

        def ratio(x):
            return f"{x / kr_cpu:.1f}×" if kr_cpu > 0 else "–"
        lines.append(f"| {r['release']} | {r['nodes']:,} | {num(idle)} | {num(rl_cpu)} | {num(kr_cpu)} | "
                     f"{ratio(rl_cpu)} | {num(w_cpu)} | {ratio(rl_cpu + w_cpu)} | "
                     f"{size(rl_bytes)} / {size(w_bytes)} / {size(kr_bytes)} | {num(b_cpu)} ms/s, {size(b_bytes)}/s |")
    return lines + [""]


def health_table(results):
    lines = ["## The GCS and the load generator during the run", "",
             "Rows ALIVE before and after; the GCS's health checks and resource-load pulls answered per second "
             "(the lowest and highest over the asks' runs); the GCS's RSS at the end; warnings in its log (the "
             "most frequent three, with the first message of each).", "",
             "| Ray | nodes | registered + checked in | ALIVE before → after | health checks/s | load pulls/s | "
             "GCS RSS | GCS warnings |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        checks = [a["checks_per_s"] for a in r["asks"]] or [0]
        pulls = [a["pulls_per_s"] for a in r["asks"]] or [0]
        top = sorted(r.get("warnings", {}).items(), key=lambda kv: -kv[1][0])[:3]
        warnings = "; ".join(f"`{where}` ×{count}: \"{first[:120]}\"" for where, (count, first) in top)
        lines.append(f"| {r['release']} | {r['nodes']:,} | {num(r.get('ready_s'))} s | "
                     f"{r.get('alive_before', '–')} → {r.get('alive_after', '–')} | "
                     f"{num(min(checks))} – {num(max(checks))} | {num(min(pulls))} – {num(max(pulls))} | "
                     f"{num(r.get('gcs_rss_mb'))} MB | {warnings or 'none'} |")
    return lines + [""]


def notes(results):
    lines = ["Notes:",
             "- Cadences: the barrier's is its own (polls at least 275 ms apart, stretched to 10× a reply slower than "
             "27.5 ms: measured on its clock); readiness 1 per 5 s (the kubelet's period; /readyz answers from state "
             "at most 1 s old); the head watch one look per 2 s, two RPCs (the cluster id, then this node's row); the "
             "head's probes and KubeRay's: liveness and readiness every 5 s each (KubeRay's `wget` to the agent, or "
             "from Ray 2.53 its HTTP probe of `/api/healthz`: one `CheckAlive` with the node each, and on the head "
             "one empty `CheckAlive` more).",
             "- An ask's cost grows with N where the GCS reads or sends every row: the barrier's table (the whole "
             "table on Ray < 2.51; from 2.51 the light `GetAllNodeAddressAndLiveness`, with the whole table every "
             "10 s), readiness's row by name on every release (the GCS tests each row against the name), and on "
             "Ray 2.36–2.48 the watch's row by id as well (2.49+ looks a lone node id up in a map; "
             "ray-gcs-wire.md §2.3). `CheckAlive` with a node looks it up.",
             "- The load generator answers what a raylet is asked, not what a raylet sends by itself (its resource "
             "reports over the syncer stream, task events, metrics): a real cluster's GCS at rest is busier; the "
             "cost of each ask is the same.",
             "- Not measured: TLS (adds the same handshake to both), token auth, `raylaunch probe` run as an exec "
             "probe (a new connection each time, and an empty `CheckAlive` before each readiness lookup).",
             ""]
    failed = [r for r in results if r["error"]]
    for r in failed:
        lines.append(f"- Ray {r['release']} at {r['nodes']:,} nodes: {r['error']} (load generator state "
                     f"{r.get('state')}).")
    return lines


def write(path, results, meta, params):
    lines = header(meta, params) + cluster_table(results, params["asks"]) + per_call_tables(results, params["asks"])
    lines += health_table(results) + notes(results)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    import sys
    with open(sys.argv[1]) as f:
        run = json.load(f)
    write(sys.argv[2] if len(sys.argv) > 2 else os.path.splitext(sys.argv[1])[0] + ".md", run["results"], run["meta"],
          run["params"])
