#!/usr/bin/python3
"""Manifests that scripts/check-manifests accepts meeting an image, a node or a cluster they do
not fit — what only the pods can find out — on the real cluster. Each failure is one clear line
in the log and the same line as the termination message (`kubectl describe pod`), with
raylaunch's documented exit code, and does not hang:

- the image lacks the overlay's RAYLAUNCH_VENV: 64 on every pod, nothing started, and the
  kubelet's CrashLoopBackOff;
- the node lacks the GPUs the settings expect (RAYLAUNCH_GPUS=8, checks strict): 78;
- the image lacks the launch command (the Indexed Job): 127 on index 0, nothing started, and the
  Job's podFailurePolicy fails the Job at once, its worker stopped cleanly;
- the cluster's DNS domain is not the RAYLAUNCH_CLUSTER_DOMAIN the manifests set (they say
  cluster.example, the cluster is cluster.local): every pod refuses at start (64), naming the
  setting and the domain its own /etc/hosts says, instead of retrying a head name that never
  resolves for the whole join timeout.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import assert_clean_end, launched, raylaunch_run, wait_exit, wait_log  # noqa: E402
from kubetest.testing import eq, main  # noqa: E402

VENV = "/opt/venv/openvla-oft"  # the GPU overlays'
NAMES = ("training-0", "training-1")


def refused_at_start(k, name, code, message):
    """The first container start of `name` ended with `code`, said `message` once as its last
    line and as its termination message, and started nothing."""
    run = wait_exit(k, name, 0, 120)
    eq(run.exit_code, code, f"{name}: exit code ({run.text()[-1500:]})")
    text = (run.message or "").strip()
    eq(len(text.splitlines()), 1, f"{name}: a one-line termination message ({text!r})")
    assert message in text, f"{name}: termination message {text!r} lacks {message!r}"
    eq(run.text().strip().splitlines()[-1], f"raylaunch: error: {text}", f"{name}: the last log line")
    assert "started ray start" not in run.text(), run.text()
    return run


def test_an_image_without_the_overlays_venv():
    with raylaunch_run(replicas=2, env={"RAYLAUNCH_VENV": VENV}) as k:
        k.start()
        for name in NAMES:
            run = refused_at_start(k, name, 64, f'RAYLAUNCH_VENV: "{VENV}" is not valid')
            assert f"{VENV}/bin does not exist in this image" in run.message, run.message
        # restartPolicy Always: CrashLoopBackOff, each start refused the same way.
        k.wait_for(lambda: any(e.get("reason") == "BackOff" for e in k.events()), 60, "CrashLoopBackOff")


def test_a_node_without_the_gpus():
    with raylaunch_run(replicas=2, env={"RAYLAUNCH_GPUS": "8"}) as k:
        k.start()
        for name in NAMES:
            # This node fails shm too (the test image's pods have no 8 GiB /dev/shm): the
            # termination message names both, the log says each in full.
            run = wait_exit(k, name, 0, 120)
            eq(run.exit_code, 78, f"{name}: exit code ({run.text()[-1500:]})")
            text = (run.message or "").strip()
            eq(len(text.splitlines()), 1, f"{name}: a one-line termination message ({text!r})")
            assert "node check gpus failed" in text, f"{name}: termination message {text!r} lacks the GPUs"
            assert "raylaunch: error: node check gpus failed: 0 GPUs found, 8 expected (RAYLAUNCH_GPUS)" \
                in run.text(), run.text()[-1500:]
            assert "started ray start" not in run.text(), run.text()


def test_an_image_without_the_launch_command():
    launch = ["torchrun", "--nproc-per-node=8", "train.py"]
    with raylaunch_run("local-indexed-job", replicas=2, launch=launch, gated=True) as k:
        # Index 1 runs first: the Job's verdict then reaches a started worker.
        k.start(hold=["training-0"])
        wait_log(k, "training-1", "waiting for the head GCS", 120)
        k.release("training-0")
        refused_at_start(k, "training-0", 127, "the launch command: torchrun")
        conds, counts = k.wait_for(lambda: "Failed" in (j := k.job())[0] and j, 120, "the Job Failed")
        eq(conds.get("Failed"), "PodFailurePolicy", "why the Job failed")
        worker = wait_exit(k, "training-1", 0, 120)
        assert_clean_end(worker, "training-1", 143, "stopped by SIGTERM")
        eq({n: len(k.pods_named(n)) for n in NAMES}, {n: 1 for n in NAMES}, "pods per index (none replaced)")
        eq(launched(k), 0, "program starts")


def test_a_cluster_whose_dns_domain_is_not_the_manifests_is_refused_at_start():
    with raylaunch_run(replicas=2, env={"RAYLAUNCH_CLUSTER_DOMAIN": "cluster.example"}) as k:
        k.start()
        for name in NAMES:
            run = refused_at_start(k, name, 64,
                                   'RAYLAUNCH_CLUSTER_DOMAIN: "cluster.example" contradicts this pod\'s own name')
            assert "expected cluster.local" in run.message, run.message


main(test_an_image_without_the_overlays_venv, test_a_node_without_the_gpus,
     test_an_image_without_the_launch_command,
     test_a_cluster_whose_dns_domain_is_not_the_manifests_is_refused_at_start)
