#!/usr/bin/python3
"""Scenario 2 on the real Ray: the indexed-job overlay (RAYLAUNCH_ON_SUCCESS=exit, restartPolicy
Never, successPolicy `succeededIndexes: "0"`). Index 0 runs the Ray program once every index
is ALIVE (it sees the 3 nodes and runs a task in each pod) and exits 0; the Job controller then terminates the other indexes as Kubernetes does;
each worker stops Ray on SIGTERM and exits 143 within its grace period; the Job is Complete,
no pod was replaced and nothing is left running."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import realray  # noqa: E402
from harness.scenario import assert_clean_end, launched, raylaunch_cluster  # noqa: E402
from harness.testing import eq, main  # noqa: E402


def test_index_0_succeeds_and_the_job_ends_the_rest():
    with raylaunch_cluster("indexed-job", replicas=2) as c:
        c.start()
        job = c.job
        c.wait_for(lambda: job.result is not None, 300, "the Job to finish")
        eq(job.result, "Complete", f"the Job's result ({job.status()})")
        eq([cond for _, cond, _ in job.conditions], ["SuccessCriteriaMet", "Complete"], "conditions")
        assert "SuccessPolicy" in job.conditions[0][2], job.conditions
        eq(len(job.pods), 2, "pods created (none replaced)")
        head = next(p for p in job.pods if p.hostname == "training-0")
        assert head.name.startswith("training-0-") and len(head.name) == len("training-0-") + 5, head.name
        eq(launched(c), 1, "program runs")
        eq(realray.program_lines(head.runs[0], "ray.init() connected"),
           ["ray.init() connected: 2 ALIVE nodes: training-0 training-1"], "what ray.init() saw")
        eq(realray.hostnames(head.runs[0]), ["training-0", "training-1"], "hostnames of the pinned tasks")
        assert_clean_end(c, head.runs[0], head.name, 0, "command exited with 0 after ")
        assert "exiting 0: command exited with 0" in head.log_text(), head.log_text()[-2000:]
        for p in job.pods:
            eq(len(p.runs), 1, f"{p.name}: container starts (restartPolicy Never)")
            if p is head:
                continue
            # Terminated by the Job controller once index 0 met the success policy.
            killing = [e for e in c.events if e.pod == p.name and e.reason == "Killing"]
            assert killing and "SuccessPolicy" in killing[0].message, killing
            # The head's Ray is gone by then: `ray start` gives up draining its node (the GCS
            # does not answer) and Ray's agents, which follow their raylet a moment later,
            # may still be there when it exits; raylaunch's `ray stop` fallback takes them.
            assert_clean_end(c, p.runs[0], p.name, 143, "stopped by SIGTERM while Ray ran", ray_outlived=True)
        eq(sorted(p.phase for p in job.pods), ["Failed", "Succeeded"], "pod phases")
        eq(c.pods and [p for p in c.pods if p.running], [], "pods still running")
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_index_0_succeeds_and_the_job_ends_the_rest)
