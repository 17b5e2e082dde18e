#!/usr/bin/python3
"""Scenario 9 (pods with the real Ray's virtualenv): manifests that scripts/check-manifests accepts (the overlays as
committed) meeting an image, a node or a cluster they do not fit — what only the pods can find
out. Each failure must be one clear line in the log and the same line as the termination
message (`kubectl describe pod`), with raylaunch's documented exit code, and must not hang:

- the image lacks the overlay's RAYLAUNCH_VENV: 64 on every pod, nothing started;
- the node lacks the GPUs the overlay expects (RAYLAUNCH_GPUS=8, checks strict): 78;
- the image lacks the launch command (indexed-job): 127 on index 0, nothing started, and the
  Job's podFailurePolicy fails the Job at once, its workers stopped cleanly;
- the cluster's DNS domain is not the RAYLAUNCH_CLUSTER_DOMAIN the manifests set: every pod
  refuses at start (64), naming the setting and the domain its own /etc/hosts says, instead of
  retrying a head name that never resolves for the whole join timeout.

A wrong RAYLAUNCH_SERVICE, the issue's example, is rejected by the validator (rule
service-name), so the DNS domain, which no offline check can know, stands in for it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.scenario import assert_clean_end, launched, raylaunch_cluster, wait_exit, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402

VENV = "/opt/venv/openvla-oft"  # the overlay's


def refused_at_start(c, name, code, message):
    """The first container start of `name` ended with `code`, said `message` once as its last
    line and as its termination message, and started nothing."""
    run = wait_exit(c, name, 0, 30)
    eq(run.exit_code, code, f"{name}: exit code ({run.text()[-1500:]})")
    eq(run.message.strip(), run.message.strip().splitlines()[0], f"{name}: a one-line termination message")
    assert message in run.message, f"{name}: termination message {run.message!r} lacks {message!r}"
    eq(run.log[-1].text, f"raylaunch: error: {run.message.strip()}", f"{name}: the last log line")
    assert "started ray start" not in run.text(), run.text()
    return run


def test_an_image_without_the_overlays_venv():
    with raylaunch_cluster("p4de", replicas=2, env={"RAYLAUNCH_VENV": VENV}) as c:
        c.start()
        for name in ("training-0", "training-1"):
            refused_at_start(c, name, 64, f'RAYLAUNCH_VENV: "{VENV}" is not valid')
            assert f"{VENV}/bin does not exist in this image" in c.pod(name).runs[0].message
        # restartPolicy Always: CrashLoopBackOff, each start refused the same way.
        c.wait_for(lambda: any(e.reason == "BackOff" for e in c.events), 30, "CrashLoopBackOff")
    eq(c.leftovers(), [], "nothing left running")


def test_a_node_without_the_gpus():
    # The overlay's own /dev/shm (128Gi): with GPUs expected the shm check wants 64Gi.
    with raylaunch_cluster("p4de", replicas=2, env={"RAYLAUNCH_GPUS": "8"}, mutate_pod=None) as c:
        c.start()
        for name in ("training-0", "training-1"):
            refused_at_start(c, name, 78, "node check gpus failed: 0 GPUs found, 8 expected (RAYLAUNCH_GPUS)")
    eq(c.leftovers(), [], "nothing left running")


def test_an_image_without_the_launch_command():
    launch = ["torchrun", "--nproc-per-node=8", "train.py"]
    with raylaunch_cluster("indexed-job", replicas=2, launch=launch) as c:
        # Index 1 runs first: the Job's verdict then reaches a started worker (a SIGTERM in a
        # container's first millisecond or two reaches raylaunch before it has blocked its
        # signals; PID 1 with the default action drops it, as under a real kubelet).
        c.start(hold=["training-0"])
        wait_log(c, "training-1", "waiting for the head GCS", 30)
        c.release("training-0")
        job = c.job
        head = c.wait_for(lambda: next((p for p in job.pods if p.hostname == "training-0"), None), 30, "index 0")
        refused_at_start(c, head.name, 127, "the launch command: torchrun")
        c.wait_for(lambda: job.result is not None, 60, "the Job to finish")
        eq(job.result, "Failed", f"the Job ({job.status()})")
        assert "PodFailurePolicy: exit 127" in job.conditions[0][2], job.conditions
        eq(len(job.pods), 2, "pods created (none replaced)")
        worker = next(p for p in job.pods if p is not head)
        assert_clean_end(c, worker.runs[0], worker.name, 143, "stopped by SIGTERM")
        eq(launched(c), 0, "program runs")
    eq(c.leftovers(), [], "nothing left running")


def another_dns_domain(join_timeout):
    env = {"RAYLAUNCH_JOIN_TIMEOUT": join_timeout} if join_timeout else {}
    return raylaunch_cluster("p4de", replicas=2, cluster_domain="cluster.example", env=env)


def test_a_cluster_whose_dns_domain_is_not_the_manifests_is_refused_at_start():
    # The manifests say cluster.local; this cluster's kubelet writes cluster.example into each
    # pod's /etc/hosts. Every pod refuses at once (64), naming the setting, instead of retrying
    # a head name that never resolves for the whole join timeout (1800 s in the manifests).
    with another_dns_domain(None) as c:
        c.start()
        for name in ("training-0", "training-1"):
            run = refused_at_start(c, name, 64, 'RAYLAUNCH_CLUSTER_DOMAIN: "cluster.local" contradicts this pod\'s own name')
            assert "expected cluster.example" in run.message, run.message
    eq(c.leftovers(), [], "nothing left running")


if __name__ == "__main__":
    main(test_an_image_without_the_overlays_venv, test_a_node_without_the_gpus,
         test_an_image_without_the_launch_command, test_a_cluster_whose_dns_domain_is_not_the_manifests_is_refused_at_start)
