#!/usr/bin/python3
"""The README demo's cluster story (scripts/demo runs it): the 3 pods of the real p4de
StatefulSet overlay on the real Ray (the current pinned release, RAYLAUNCH_VENV), their logs
interleaved as `training-1 | ...`, narrated by `[demo]` lines: roles, DNS, Ray starting, the
join barrier (2/3, then 3/3 nodes alive), the real Ray program once on the head (ray.init(),
one task pinned to each pod), the kubelet's probes, and `kubectl delete statefulset` ending
every pod cleanly.

  sudo RAYLAUNCH_BIN=build/raylaunch tests/cluster/demo.py

Exit status: 0 told; 1 something went wrong; 125 this machine cannot run it (one line why).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import realray  # noqa: E402
from harness.cluster import NeedsRoot, check_host  # noqa: E402
from harness.manifest import ManifestError, kubectl  # noqa: E402
from harness.scenario import raylaunch_cluster, wait_log  # noqa: E402
from harness.testing import Skip  # noqa: E402

# Ray's own output, relayed by raylaunch as `ray: ...` (and the driver's in the program's log):
# a few of its lines say something here, the rest is Ray's banner.
RAY_KEPT = ("Local node IP", "Ray runtime started", "received SIGTERM", "Connected to Ray cluster")
BOLD, PLAIN = ("\033[1m", "\033[0m") if sys.stdout.isatty() else ("", "")


class PodLogs:
    """The cluster's log sink: every line, except most of Ray's."""

    def write(self, text):
        for line in text.splitlines():
            ray_line = "] ray: " in line or "INFO worker.py:" in line
            if ray_line and not any(k in line for k in RAY_KEPT):
                continue
            sys.stdout.write(line + "\n")

    def flush(self):
        sys.stdout.flush()


def say(text):
    sys.stdout.write(f"{BOLD}[demo]     | {text}{PLAIN}\n")
    sys.stdout.flush()


def probe_summary(c):
    for p in c.pods:
        parts = []
        for kind in ("startup", "liveness", "readiness"):
            rs = c.probes_of(p, kind)
            ok = sum(r.ok for r in rs)
            early = next((i for i, r in enumerate(rs) if r.ok), len(rs))  # failures while Ray started
            parts.append(f"{kind} {ok}/{len(rs)} passed" + (f" ({early} while starting)" if early else ""))
        last = c.probes_of(p, "liveness")[-1].detail.strip() if c.probes_of(p, "liveness") else "-"
        say(f"  {p.name}: {', '.join(parts)}; last /livez: {last[:90]}")


def story():
    venv = realray.current_venv()
    with raylaunch_cluster("p4de", replicas=3, log=PodLogs(), show_events=True) as c:
        say(f"kubectl kustomize manifests/overlays/p4de, resized to 3 pods, on Ray {realray.release(venv)}"
            f" (RAYLAUNCH_VENV={venv}); training-2's node is still booting")
        c.start(hold=["training-2"])
        wait_log(c, "training-0", "2/3 nodes alive; missing: training-2", 240)
        pods = [f"{name.split('.')[0]} -> {ips[0]}" for name, ips in sorted(c.dns.records().items())
                if name.startswith("training-")]
        say(f"cluster DNS, headless Service `training` (publishNotReadyAddresses): {', '.join(pods)}")
        time.sleep(0.5)
        say("training-2's node is up: the StatefulSet's last pod starts")
        c.release("training-2")
        wait_log(c, "training-0", "staying up (--on-success stay)", 240)
        say("the program ran once, on the head, and each pinned task ran in its own pod;"
            " RAYLAUNCH_ON_SUCCESS=stay keeps Ray and the pods up")
        time.sleep(1.5)
        say("the kubelet's probes (httpGet :8081 /livez and /readyz; periods scaled x0.2):")
        probe_summary(c)
        say("kubectl delete statefulset training")
        c.stop()
        c.loop.call(lambda: None)  # the last events are printed
        for p in c.all_pods:
            run = p.runs[-1]
            say(f"  {p.name}: exit {run.exit_code}, termination message: {run.message.strip()!r}")
    left = c.leftovers()
    say("nothing left running (processes, namespaces, mounts)" if not left else f"left behind: {left}")
    return 0 if not left else 1


def main():
    try:
        check_host()
        kubectl()
        return story()
    except (NeedsRoot, ManifestError, Skip) as e:
        print(f"cannot run the cluster here: {e}")
        return 125
    except realray.RayMissing as e:
        print(f"cannot run the cluster here: {e}")
        return 125


if __name__ == "__main__":
    sys.exit(main())
