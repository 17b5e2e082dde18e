#!/usr/bin/python3
"""components/restart-in-place on the real kubelet (container restart rules, Kubernetes 1.35):
the Indexed Job's raylaunch containers restart in place on a retryable exit and end the pod on
raylaunch's permanent codes.

- The launch command fails once (exit 1; the marker it leaves on /dev/shm's emptyDir, which
  outlives the container, makes its next run succeed): the kubelet restarts the head's container
  in the same pod; the new head is a new Ray cluster, so each worker's head watch ends its
  container (69), which the kubelet restarts in place too; they rejoin, the command runs again
  and succeeds, and the Job completes. No pod failed or was replaced: without the component the
  first failure would have failed the Job (maxFailedIndexes: 0).
- A failed node check (78) is not restarted: the pod fails, the Job's podFailurePolicy fails the
  Job at once.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import assert_clean_end, launched, program, raylaunch_run, wait_exit  # noqa: E402
from kubetest.testing import eq, main  # noqa: E402

NAMES = ["training-0", "training-1", "training-2"]
COMPONENT = ["restart-in-place"]


def test_a_retryable_failure_restarts_in_place_and_the_job_completes():
    with raylaunch_run("local-indexed-job", components=COMPONENT,
                       launch=program("--first-exit", "1", "--marker", "/dev/shm/failed-once")) as k:
        k.start()
        first = wait_exit(k, "training-0", 0, 300)
        eq(first.exit_code, 1, "the head's first exit")
        k.wait_for(lambda: k.pod("training-0").restart_count == 1, 60, "the head's container restarted in place")
        for w in NAMES[1:]:
            run = wait_exit(k, w, 0, 180)
            eq(run.exit_code, 69, f"{w}'s first exit (its head watch: a new cluster)")
            assert "is a new cluster" in (run.message or ""), run.message
        conds, counts = k.wait_for(lambda: "Complete" in (j := k.job())[0] and j, 400, "the Job Complete")
        second = k.pod("training-0").runs[1]
        assert_clean_end(second, "training-0", 0, "command exited with 0 after")
        eq(launched(k), 2, "program starts (once more, in place)")
        eq(counts["failed"], 0, "failed pods")
        eq({n: len(k.pods_named(n)) for n in NAMES}, {n: 1 for n in NAMES}, "pods per index (none replaced)")


def test_a_permanent_code_ends_the_pod_and_the_job():
    with raylaunch_run("local-indexed-job", components=COMPONENT, env={"RAYLAUNCH_GPUS": "1"}) as k:
        k.start()
        conds, _ = k.wait_for(lambda: "Failed" in (j := k.job())[0] and j, 120, "the Job Failed")
        eq(conds.get("Failed"), "PodFailurePolicy", "why the Job failed")
        head = k.pod("training-0")
        eq(head.runs[0].exit_code, 78, "the head's exit status")
        eq(head.restart_count, 0, "restarts of a container that exited 78")


main(test_a_retryable_failure_restarts_in_place_and_the_job_completes, test_a_permanent_code_ends_the_pod_and_the_job)
