#!/usr/bin/python3
"""`kubectl delete -k manifests/overlays/local` while the cluster runs, as a user ends it, with
the overlay's own graces (terminationGracePeriodSeconds 120, RAYLAUNCH_TERM_GRACE 60s,
RAYLAUNCH_RAY_STOP_GRACE 20s): every pod ends by itself within its grace period — none is
killed by the kubelet after it (137) — with the status docs/run.md gives (the head 0, its
command having succeeded; a worker 143), and nothing of the workload is left.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.cluster import KubeRun, kubectl  # noqa: E402
from kubetest.scenario import assert_clean_end, wait_log  # noqa: E402
from kubetest.testing import eq, main, tracked  # noqa: E402

NAMES = ["training-0", "training-1", "training-2"]
GRACE = 120  # the base's terminationGracePeriodSeconds


def test_every_pod_ends_within_its_grace():
    with tracked(KubeRun.as_user("local")) as k:
        k.start()
        wait_log(k, "training-0", "staying up (--on-success stay)", 300)
        k.wait_for(lambda: all(k.pod(n).ready for n in NAMES), 120, "every pod Ready")
        started = time.monotonic()
        kubectl("delete", "-k", k.kustomize_dir, "-n", k.namespace, "--wait=false", env=k.env)
        k.wait_for(lambda: all(k.pod(n).runs and k.pod(n).runs[-1].ended for n in NAMES), GRACE + 30,
                   "every pod's container to end")
        took = time.monotonic() - started
        assert took < GRACE, f"the pods took {took:.0f} s, more than their {GRACE} s grace"
        assert_clean_end(k.pod("training-0").runs[-1], "training-0", 0,
                         "the command had succeeded; stopped by SIGTERM while staying up")
        for w in NAMES[1:]:
            assert_clean_end(k.pod(w).runs[-1], w, 143, "stopped by SIGTERM while Ray ran")
        k.wait_for(lambda: not kubectl("get", "pods", "-n", k.namespace, "--no-headers",
                                       env=k.env).stdout.strip(), 60, "no pod left")
        print(f"every pod ended {took:.1f} s after kubectl delete (grace {GRACE} s)")
        eq(k.pod("training-0").restart_count, 0, "restarts")


main(test_every_pod_ends_within_its_grace)
