#!/usr/bin/python3
"""The workers start before the head, on the real cluster and the real Ray: the head's pod is
held unscheduled for 10 s (its node still being provisioned), so its DNS name has no record in
CoreDNS (NXDOMAIN, which CoreDNS's cache then keeps for its negative TTL, as on EKS). The
workers keep waiting, saying what they wait for, start no Ray and are not restarted by their
probes; they join once the name resolves; the program runs once, sees the 3 nodes and runs a
task in each pod. The 10 s are real seconds: raylaunch's own retry pacing is not scaled.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import (assert_program_saw, killed_by_probe, launched, raylaunch_run,  # noqa: E402
                               wait_log)
from kubetest.testing import eq, main  # noqa: E402

WORKERS_FIRST_S = 10
WORKERS = ("training-1", "training-2")
RAY = ("raylet", "gcs_server", "ray")  # the comm names of Ray's processes (`ray start` is python's `ray`)


def test_workers_first_and_a_late_head():
    with raylaunch_run(replicas=3, gated=True) as k:
        k.start(hold=["training-0"])
        head_name = f"training-0.training.{k.namespace}.svc.cluster.local"
        for w in WORKERS:
            wait_log(k, w, f"waiting for the head GCS at {head_name}:6379", 120)
        time.sleep(WORKERS_FIRST_S)
        for w in WORKERS:
            pod = k.pod(w)
            text = pod.log_text()
            assert f"head GCS at {head_name}:6379: DNS stage failing" in text, \
                f"{w} does not say it cannot resolve the head:\n{text[-3000:]}"
            assert "started ray start" not in text, f"{w} started Ray before its head answered"
            eq([c for _, c in k.processes(w) if c in RAY], [], f"{w}: Ray processes while waiting")
            eq((pod.restart_count, pod.running), (0, True), f"{w}: (restarts, running) while waiting for the head")

        k.release("training-0")
        wait_log(k, "training-0", "staying up (--on-success stay)", 300)
        head = k.pod("training-0").runs[0]
        assert_program_saw(head)
        for w in WORKERS:
            assert f"head GCS at {head_name}:6379 answered" in k.pod(w).log_text(), k.pod(w).log_text()[-2000:]
            eq(killed_by_probe(k, w), [], f"{w} killed by a probe")
        eq([p.restart_count for p in k.pods], [0, 0, 0], "restarts")
        eq(launched(k), 1, "program starts")


main(test_workers_first_and_a_late_head)
