#!/usr/bin/python3
"""The indexed-job overlay's CPU form (manifests/overlays/local-indexed-job) under the real Job
controller: its successPolicy, its podFailurePolicy, maxFailedIndexes: 0.

- The program succeeds on index 0: the Job is complete by its success policy (index 0
  succeeded), the controller ends the other indexes (SIGTERM: 143, nothing forced) and replaces
  no pod.
- A node check fails on every pod (78: RAYLAUNCH_GPUS=1 on a node without GPUs): the Job fails at
  once by its podFailurePolicy (FailJob on 78), no pod is retried, nothing of Ray started.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import assert_clean_end, hostnames, raylaunch_run, wait_exit  # noqa: E402
from kubetest.testing import eq, main  # noqa: E402

NAMES = ["training-0", "training-1", "training-2"]


def one_pod_per_index(k):
    return {n: len(k.pods_named(n)) for n in NAMES}


def test_the_job_completes_by_its_success_policy():
    with raylaunch_run("local-indexed-job") as k:
        k.start()
        head = wait_exit(k, "training-0", 0, 300)
        assert_clean_end(head, "training-0", 0, "command exited with 0 after")
        eq(hostnames(head), NAMES, "the hostnames the pinned tasks returned")
        conds, _ = k.wait_for(lambda: "Complete" in (j := k.job())[0] and j, 120, "the Job Complete")
        assert conds.get("SuccessCriteriaMet") == "SuccessPolicy", conds
        for w in NAMES[1:]:
            run = wait_exit(k, w, 0, 120)
            # The head is gone before the controller ends the workers: their drain finds no GCS
            # (the message says "not drained"), and Ray's agents, which ask the GCS, may outlive
            # `ray start` (the DashboardAgent and RuntimeEnvAgent did on CI), so raylaunch's
            # `ray stop` fallback may run. Nothing of raylaunch's own may be forced.
            assert_clean_end(run, w, 143, "stopped by SIGTERM while Ray ran", ray_outlived=True)
            assert "; not drained: " in (run.message or ""), run.message
        eq(one_pod_per_index(k), {n: 1 for n in NAMES}, "pods per index (none replaced)")


def test_a_failed_node_check_fails_the_job_at_once():
    with raylaunch_run("local-indexed-job", env={"RAYLAUNCH_GPUS": "1"}) as k:
        k.start()
        conds, counts = k.wait_for(lambda: "Failed" in (j := k.job())[0] and j, 120, "the Job Failed")
        eq(conds.get("Failed"), "PodFailurePolicy", "why the Job failed")
        for name in NAMES:
            run = wait_exit(k, name, 0, 60)
            if name != "training-0" and run.exit_code == 143:
                continue  # the Job controller ended it first, which is as good
            eq(run.exit_code, 78, f"{name}'s exit status")
            # The first failed check is the message (shm: with GPUs expected it wants 64Gi); the
            # log names every one, the GPUs among them.
            assert (run.message or "").startswith("node check "), run.message
            assert "0 GPUs found, 1 expected (RAYLAUNCH_GPUS)" in run.text(), run.text()[-2000:]
            assert "started ray start" not in run.text(), run.text()[-2000:]
        eq(one_pod_per_index(k), {n: 1 for n in NAMES}, "pods per index (none retried)")


main(test_the_job_completes_by_its_success_policy, test_a_failed_node_check_fails_the_job_at_once)
