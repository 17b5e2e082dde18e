#!/usr/bin/python3
"""The README demo's cluster story (scripts/demo runs it): scenario 1 with 3 pods of the real
p4de StatefulSet overlay, their logs interleaved as `training-1 | ...`, narrated by `[demo]`
lines: roles, DNS, Ray starting, the join barrier (2/3, then 3/3 nodes alive), the command
once on the head, the kubelet's probes, and `kubectl delete statefulset` ending every pod
cleanly.

  sudo RAYLAUNCH_BIN=build/raylaunch FAKE_GCS=build/tests/gcs/fake_gcs tests/cluster/demo.py

Exit status: 0 told; 1 something went wrong; 125 this machine cannot run it (one line why).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness.cluster import NeedsRoot, check_host  # noqa: E402
from harness.manifest import ManifestError, kubectl  # noqa: E402
from harness.scenario import raylaunch_cluster, wait_log  # noqa: E402
from harness.testing import Skip  # noqa: E402

# A pretend training run: asks Ray's GCS (RAY_ADDRESS, set by raylaunch) what it sees.
TRAIN = ["sh", "-c", 'echo "train: ray.init() at $RAY_ADDRESS sees'
         ' $("$FAKE_GCS" nodes --address "$RAY_ADDRESS" | grep -c ALIVE) nodes";'
         ' for s in 1 2 3; do sleep 0.3; echo "train: step $s/3"; done; echo "train: done"']
# The fake `ray start` prints Ray's banner; two of its lines say something here.
BANNER_KEPT = ("Local node IP", "Ray runtime started")
BOLD, PLAIN = ("\033[1m", "\033[0m") if sys.stdout.isatty() else ("", "")


class PodLogs:
    """The cluster's log sink: every line, except the fake Ray's banner."""

    def write(self, text):
        for line in text.splitlines():
            if "] ray: " in line and not any(k in line for k in BANNER_KEPT):
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
    # A Ray 2.40 GCS: it filters the node table by name, so readiness is asked fresh each time.
    ray = {"FAKE_RAY_VERSION": "2.40.0"}
    with raylaunch_cluster("p4de", replicas=3, launch=TRAIN, image_env=ray, log=PodLogs(), show_events=True) as c:
        say("kubectl kustomize manifests/overlays/p4de, resized to 3 pods; training-2's node is still booting")
        c.start(hold=["training-2"])
        wait_log(c, "training-0", "2/3 nodes alive; missing: training-2", 60)
        pods = [f"{name.split('.')[0]} -> {ips[0]}" for name, ips in sorted(c.dns.records().items())
                if name.startswith("training-")]
        say(f"cluster DNS, headless Service `training` (publishNotReadyAddresses): {', '.join(pods)}")
        time.sleep(0.5)
        say("training-2's node is up: the StatefulSet's last pod starts")
        c.release("training-2")
        wait_log(c, "training-0", "staying up (--on-success stay)", 60)
        say("the command ran once, on the head; RAYLAUNCH_ON_SUCCESS=stay keeps Ray and the pods up")
        time.sleep(1.5)
        say("the kubelet's probes (httpGet :8081 /livez and /readyz; periods scaled x0.05):")
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


if __name__ == "__main__":
    sys.exit(main())
