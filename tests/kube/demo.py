#!/usr/bin/python3
"""`scripts/demo --kube`'s story, on the real one-node Kubernetes of scripts/kube: what a user
sees of the kit. `kubectl apply -k manifests/overlays/local` into a namespace that enforces the
"restricted" Pod Security Standard; the pods as `kubectl get pods` shows them while they start,
join and turn Ready by the kubelet's own probes; their logs interleaved (`training-1 | ...`,
from the node's log files, most of Ray's own lines left out); the real Ray program once on the
head, one task in each pod; then `kubectl delete -k`, every pod ending by itself.

  sudo tests/kube/demo.py          (after scripts/kube up && scripts/kube image)

Exit status: 0 told; 1 something went wrong; 125 this machine cannot run it (one line why).
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubetest.cluster import ClusterMissing, KubeRun, Skip, kubectl, require_cluster  # noqa: E402

NAMES = ["training-0", "training-1", "training-2"]
RAY_KEPT = ("Local node IP", "Ray runtime started", "received SIGTERM", "Connected to Ray cluster")
BOLD, PLAIN = ("\033[1m", "\033[0m") if sys.stdout.isatty() else ("", "")


def say(text):
    sys.stdout.write(f"{BOLD}[demo]     | {text}{PLAIN}\n")
    sys.stdout.flush()


class Tail:
    """Prints every new log line of the pods, `name | line`, as the node's log files grow."""

    def __init__(self, k):
        self.k, self.seen, self.stop = k, {}, threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.is_set():
            self.flush()
            time.sleep(0.3)

    def flush(self):
        for name in sorted(self.k.pod_names()):
            for pod in self.k.pods_named(name):
                for r in pod.runs:
                    lines = r.text().splitlines()
                    key = (pod.uid, r.index)
                    for line in lines[self.seen.get(key, 0):]:
                        ray_line = "] ray: " in line or "INFO worker.py:" in line
                        if not ray_line or any(k in line for k in RAY_KEPT):
                            sys.stdout.write(f"{name:<10} | {line}\n")
                    self.seen[key] = len(lines)
        sys.stdout.flush()


def get_pods(k):
    out = kubectl("get", "pods", "-n", k.namespace, "-o", "wide", env=k.env).stdout
    for line in out.splitlines():
        say("  " + line[:110])


def story():
    k = KubeRun.as_user("local")
    tail = Tail(k)
    try:
        say(f"kubectl create namespace {k.namespace} (pod-security.kubernetes.io/enforce=restricted)")
        say(f"kubectl apply -k manifests/overlays/local -n {k.namespace}: 3 pods of the kit's StatefulSet,"
            " the test image (Debian 12, Ray 2.60.0, raylaunch copied in as docs/deploy.md says)")
        k.start()
        tail.thread.start()
        k.wait_for(lambda: len(k.pod_names()) == 3 and all(k.pod(n).running for n in NAMES), 120, "3 pods running")
        tail.flush()
        say("kubectl get pods -o wide (the scheduler placed them; the kubelet started raylaunch as PID 1):")
        get_pods(k)
        k.wait_for(lambda: "staying up (--on-success stay)" in k.pod("training-0").log_text(), 300, "the program")
        k.wait_for(lambda: all(k.pod(n).ready for n in NAMES), 120, "every pod Ready")
        tail.flush()
        say("the program ran once, on the head, after 3/3 nodes joined; every pinned task ran in its own pod")
        say("every pod Ready by the kubelet's httpGet probes on raylaunch's /livez and /readyz:")
        get_pods(k)
        say(f"kubectl delete -k manifests/overlays/local -n {k.namespace}")
        started = time.monotonic()
        kubectl("delete", "-k", k.kustomize_dir, "-n", k.namespace, "--wait=false", env=k.env)
        k.wait_for(lambda: all(k.pod(n).runs and k.pod(n).runs[-1].ended for n in NAMES), 150, "the pods' ends")
        tail.flush()
        for n in NAMES:
            r = k.pod(n).runs[-1]
            say(f"  {n}: exit {r.exit_code}: {(r.message or '').strip()[:120]}")
        say(f"every pod ended by itself {time.monotonic() - started:.0f} s after the delete "
            "(terminationGracePeriodSeconds 120: nothing was killed)")
    finally:
        tail.stop.set()
        k.teardown()


def main():
    try:
        require_cluster()
    except Skip as e:
        print(f"scripts/demo --kube: {e}")
        return 125
    except ClusterMissing as e:
        print(f"scripts/demo --kube: {e}")
        return 1
    story()
    return 0


if __name__ == "__main__":
    sys.exit(main())
