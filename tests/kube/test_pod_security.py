#!/usr/bin/python3
"""Pod Security admission, for real: every test namespace enforces the "restricted" Pod
Security Standard, which the local overlays' pods meet (their scenarios prove it by running).
This proves the admission is not a formality here: the p4de overlay's pods (IPC_LOCK for EFA,
root), which docs/deploy.md#pod-security says a restricted namespace rejects, are refused by the
API server — the StatefulSet is created, its controller cannot create a single pod, and says why.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubetest.cluster import KubeRun  # noqa: E402
from kubetest.testing import main, tracked  # noqa: E402


def test_a_restricted_namespace_refuses_the_efa_pods():
    with tracked(KubeRun.as_user("p4de")) as k:
        k.start()
        def refused():
            return [e for e in k.events() if e.get("reason") == "FailedCreate"
                    and "violates PodSecurity \"restricted" in (e.get("message") or "")]
        events = k.wait_for(refused, 60, "the StatefulSet controller's FailedCreate event")
        message = events[0]["message"]
        for why in ('unrestricted capabilities (container "ray" must not include "IPC_LOCK"',
                    "runAsNonRoot != true"):
            assert why in message, message
        assert not k.pod_names(), f"pods were admitted: {k.pod_names()}"


main(test_a_restricted_namespace_refuses_the_efa_pods)
