#!/usr/bin/python3
"""A worker's readiness follows its raylet's registration, on the real Ray in the emulated
harness: a readiness probe every 20 ms lands surely between `ray start` and the registration
(as one did by chance with the manifests' period in a 4-pod run). Once the head has counted the
worker ALIVE, no probe of that worker may still say "not registered".

This one stays on the harness (docs/testing.md, "The cluster harness"): the real kubelet's probe
periods are whole seconds, and only an emulated kubelet can probe on this cue. Every other pod
scenario runs on the real cluster (tests/kube/scenarios).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.scenario import raylaunch_cluster, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402


def probes_between(c, name, kind, start, end):
    return [r for r in c.probes_of(name, kind) if start <= r.t <= end]


def test_a_workers_readiness_follows_its_registration():
    fast = {"readiness": {"periodSeconds": 0.02}}
    with raylaunch_cluster("p4de", replicas=2, probes=fast) as c:
        c.start()
        wait_log(c, "training-0", "2/2 nodes alive after", 240)
        joined = next(line.t for line in c.pod("training-0").current.log if "2/2 nodes alive after" in line.text)
        settle = joined + 1.5  # the endpoint's own 1 s answer cache, and a probe in flight
        c.wait_for(lambda: len(probes_between(c, "training-1", "readiness", settle, 1e9)) >= 8,
                   30, "8 readiness probes of the worker after the barrier")
        stale = [r for r in probes_between(c, "training-1", "readiness", settle, 1e9) if "not registered" in r.detail]
        eq(stale, [], "training-1's readiness after the head counted it ALIVE")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_a_workers_readiness_follows_its_registration)
