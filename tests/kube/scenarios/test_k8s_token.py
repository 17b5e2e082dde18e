#!/usr/bin/python3
"""Ray's Kubernetes token mode (components/auth-k8s-token) on the real cluster: every Ray process
checks its callers' tokens with the API server (TokenReview, then SubjectAccessReview of ray:write),
so the nodes join only with the component's RBAC in place.

- with the component and its cluster-wide RBAC (token-review.yaml, bound to this test's
  namespace): the 3 nodes join the head (each worker's raylet presents its projected token and the
  head's GCS has it reviewed), the program runs once; raylaunch's own GCS calls (the join barrier)
  send the same token;
- a token the API server does not know is refused: `raylaunch status` with RAY_AUTH_TOKEN set to
  something else exits 69 at once (Ray's UNAUTHENTICATED).
Needs Ray >= 2.55 in the test image (the pinned 2.60.0).
"""
import json
import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.cluster import REPO, kubectl  # noqa: E402
from kubetest.scenario import launched, raylaunch_run, wait_log  # noqa: E402
from kubetest.testing import eq, main  # noqa: E402

REVIEW = os.path.join(REPO, "manifests", "components", "auth-k8s-token", "token-review.yaml")


def review_rbac(namespace):
    """token-review.yaml as an admin applies it for this namespace: the subject's namespace set, the
    cluster-wide names made the test's own (they outlive the namespace: deleted at the end)."""
    with open(REVIEW, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    for doc in docs:
        doc["metadata"]["name"] += f"-{namespace}"
        if doc["kind"] == "ClusterRoleBinding":
            doc["roleRef"]["name"] += f"-{namespace}"
            for subject in doc["subjects"]:
                subject["namespace"] = namespace
    return "---\n".join(json.dumps(d) + "\n" for d in docs)


def test_nodes_join_with_kubernetes_tokens():
    with raylaunch_run(components=("auth-k8s-token",)) as k:
        rbac = review_rbac(k.namespace)
        kubectl("apply", "-f", "-", input=rbac, env=k.env)
        try:
            k.start()
            wait_log(k, "training-0", "3/3 nodes alive", 300)
            eq(launched(k), 1, "program starts")
            code, out = k.exec("training-0", ["env", "RAY_AUTH_TOKEN=not-a-kubernetes-token", "raylaunch",
                                              "status", "--address", "127.0.0.1:6379"])
            eq(code, 69, f"raylaunch status with a token the API server does not know: {out}")
        finally:
            kubectl("delete", "-f", "-", "--ignore-not-found", input=rbac, check=False, env=k.env)


main(test_nodes_join_with_kubernetes_tokens)
