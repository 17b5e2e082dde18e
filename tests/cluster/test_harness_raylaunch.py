#!/usr/bin/python3
"""The binary under test inside the harness's pods: `raylaunch plan` (instead of `run`) with
each overlay's own command line and environment works out every pod's role from what the
pod gets (hostname, JOB_COMPLETION_INDEX, /etc/hosts, the memory-backed /dev/shm)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness.testing import eq, main, raylaunch_bin, testpod_cluster  # noqa: E402

NO_PROBES = {"startup": None, "liveness": None, "readiness": None}
# No GPU, EFA device or virtualenv here; everything else as the overlay says.
NODE_ENV = {"RAYLAUNCH_GPUS": "0", "RAYLAUNCH_EFA": "0", "RAYLAUNCH_VENV": None}


def plan_instead_of_run(pod):
    c = pod["spec"]["containers"][0]
    eq(c["command"][:2], ["raylaunch", "run"], "the overlay's command")
    c["command"] = ["raylaunch", "plan"] + c["command"][2:]
    return pod


def plans(overlay, replicas):
    with testpod_cluster(overlay, replicas=replicas, raylaunch=raylaunch_bin(), command=None, args=None,
                         probes=NO_PROBES, env=NODE_ENV, mutate_pod=plan_instead_of_run) as c:
        c.start()
        c.wait_for(lambda: len(c.all_pods) >= replicas and all(p.runs and p.runs[0].exit_code is not None
                                                                for p in c.all_pods), 30, "every plan printed")
        return {p.hostname: p.runs[0] for p in c.all_pods}


def check(runs, replicas):
    for i in range(replicas):
        run = runs[f"training-{i}"]
        eq(run.exit_code, 0, f"training-{i}: raylaunch plan's exit status\n{run.text()}")
        role = "head" if i == 0 else "worker"
        first = run.text().splitlines()[0]
        eq(first, f"raylaunch plan: training-{i} is the {role} (ordinal {i} of {replicas} nodes)", "role")
        assert "head           training-0.training.default.svc.cluster.local:6379" in run.text()
        assert "pass  shm                    tmpfs 128Gi" in run.text(), run.text()


def test_statefulset_roles():
    check(plans("p4de", 3), 3)


def test_indexed_job_roles():
    runs = plans("indexed-job", 3)
    check(runs, 3)
    assert "JOB_COMPLETION_INDEX" in runs["training-2"].text(), runs["training-2"].text()


if __name__ == "__main__":
    main(test_statefulset_roles, test_indexed_job_roles)
