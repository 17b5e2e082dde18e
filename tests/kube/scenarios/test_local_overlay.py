#!/usr/bin/python3
"""The local overlay on the real cluster, as a user runs it and sees it.

- `kubectl apply -k manifests/overlays/local`: the 3 pods Running and Ready by the kubelet's own
  httpGet probes (startup and readiness on raylaunch's /livez and /readyz); the Ray program ran
  once, on the head, after the 3 nodes joined, and each pinned task ran in its own pod; the head
  stays up (RAYLAUNCH_ON_SUCCESS=stay); the Pod Security admission of a "restricted" namespace
  admitted every pod.
- the command failing (exit 3): the head's exit status and termination message are in the
  pod's status, as `kubectl get pod` and `kubectl describe` show them, and the kubelet restarts
  the container (back-off), the program running again once Ray is up again.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.cluster import KubeRun, kubectl  # noqa: E402
from kubetest.scenario import hostnames, launched, program, raylaunch_run, wait_exit, wait_log  # noqa: E402
from kubetest.testing import eq, main, tracked  # noqa: E402

PODS = ["training-0", "training-1", "training-2"]


def test_apply_k_as_a_user_does():
    with tracked(KubeRun.as_user("local")) as k:
        k.start()
        wait_log(k, "training-0", "staying up (--on-success stay)", 300)
        head = k.pod("training-0").runs[0]
        eq(hostnames(head), PODS, "the hostnames the pinned tasks returned")
        assert "3/3 nodes alive" in head.text(), head.text()[-3000:]
        eq(launched(k), 1, "program starts")
        k.wait_for(lambda: all(k.pod(n).ready for n in PODS), 120, "every pod Ready by the kubelet's probes")
        # What `kubectl get pods` prints: every pod 1/1 Running, none restarted.
        out = kubectl("get", "pods", "-n", k.namespace, "--no-headers", env=k.env).stdout
        rows = sorted(line.split()[:4] for line in out.splitlines())
        eq(rows, [[n, "1/1", "Running", "0"] for n in PODS], "kubectl get pods")
        for n in PODS:
            pod = k.pod(n)
            eq(pod.obj["spec"]["nodeName"], "raylaunch-node", f"{n} scheduled")
            eq(pod.obj["spec"]["hostname"], n, f"{n}'s hostname (the StatefulSet controller's)")


def test_the_heads_exit_status_in_kubectl():
    with raylaunch_run(launch=program("--exit", "3")) as k:
        k.start()
        run = wait_exit(k, "training-0", 0, 300)
        eq(run.exit_code, 3, "the head's exit status")
        assert (run.message or "").startswith("command exited with 3 after"), run.message
        # As kubectl shows it: the last state of the restarted container.
        k.wait_for(lambda: k.pod("training-0").restart_count >= 1, 120, "the kubelet restarts the head")
        status = json.loads(kubectl("get", "pod", "training-0", "-n", k.namespace, "-o", "json",
                                    env=k.env).stdout)["status"]["containerStatuses"][0]
        last = status["lastState"]["terminated"]
        eq(last["exitCode"], 3, "kubectl: lastState.terminated.exitCode")
        assert last["message"].startswith("command exited with 3 after"), last["message"]
        described = kubectl("describe", "pod", "training-0", "-n", k.namespace, env=k.env).stdout
        assert "Exit Code:    3" in described, described


main(test_apply_k_as_a_user_does, test_the_heads_exit_status_in_kubectl)
