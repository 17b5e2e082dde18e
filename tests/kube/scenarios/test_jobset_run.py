#!/usr/bin/python3
"""The jobset overlay's CPU form (manifests/overlays/local-jobset) under the real JobSet
controller (v0.12.0, built from its Go module and installed from its release manifests by
scripts/kube controllers): a head Job of 1 pod and a workers Job of 2, DNS hostnames on.

- The run completes: raylaunch takes its role from the replicated Job's name and index and the
  head's address from JobSet's hostnames, the 3 nodes join, the program succeeds on the head
  (RAYLAUNCH_ON_SUCCESS=exit: 0), the JobSet is Completed by its success policy (the head Job),
  the workers are ended by the controller (SIGTERM: 143, nothing forced), no restart.
- A node check fails on every pod (78): the Jobs fail by their podFailurePolicy at once and the
  JobSet's failure policy fails the JobSet on that reason without one restart (a configuration
  error is not retried; a restart would only fail the same way).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import assert_clean_end, hostnames, raylaunch_run, wait_exit  # noqa: E402
from kubetest.testing import eq, main  # noqa: E402

HEAD = "training-head-0-0"                               # <jobset>-<job>-<job index>-<pod index>
WORKERS = ["training-workers-0-0", "training-workers-0-1"]
JOBSETS = "/apis/jobset.x-k8s.io/v1alpha2"


def jobset(k):
    """The JobSet's true conditions {type: reason} and its restart count."""
    js = k.api.get(f"{JOBSETS}/namespaces/{k.namespace}/jobsets/training")
    status = js.get("status", {})
    conds = {c["type"]: c.get("reason") for c in status.get("conditions", []) if c["status"] == "True"}
    return conds, status.get("restarts", 0)


def test_the_jobset_completes_by_its_success_policy():
    with raylaunch_run("local-jobset", replicas=None) as k:
        k.start()
        head = wait_exit(k, HEAD, 0, 300)
        assert_clean_end(head, HEAD, 0, "command exited with 0 after")
        eq(hostnames(head), [HEAD] + WORKERS, "the hostnames the pinned tasks returned")
        conds, restarts = k.wait_for(lambda: "Completed" in (j := jobset(k))[0] and j, 120, "the JobSet Completed")
        eq(restarts, 0, "JobSet restarts")
        for w in WORKERS:
            run = wait_exit(k, w, 0, 120)
            if run.exit_code == 0:
                continue  # it saw the head's cluster end first and ended by itself
            # The head is gone before the controller ends the workers: their drain finds no GCS
            # and Ray's agents may outlive `ray start` (tests/kube/scenarios/test_indexed_job.py).
            assert_clean_end(run, w, 143, "stopped by SIGTERM while Ray ran", ray_outlived=True)
        eq({n: len(k.pods_named(n)) for n in [HEAD] + WORKERS}, {n: 1 for n in [HEAD] + WORKERS},
           "pods per name (none replaced)")


def test_a_failed_node_check_fails_the_jobset_without_a_restart():
    with raylaunch_run("local-jobset", replicas=None, env={"RAYLAUNCH_GPUS": "1"}) as k:
        k.start()
        conds, restarts = k.wait_for(lambda: "Failed" in (j := jobset(k))[0] and j, 180, "the JobSet Failed")
        eq(restarts, 0, "JobSet restarts (a configuration error is not retried)")
        for name in [HEAD] + WORKERS:
            run = wait_exit(k, name, 0, 60)
            if name != HEAD and run.exit_code == 143:
                continue  # the controller ended it first, which is as good
            eq(run.exit_code, 78, f"{name}'s exit status")
            assert (run.message or "").startswith("node check "), run.message
            assert "started ray start" not in run.text(), run.text()[-2000:]


main(test_the_jobset_completes_by_its_success_policy, test_a_failed_node_check_fails_the_jobset_without_a_restart)
