#!/usr/bin/python3
"""The whole kit through the real API server's admission and validation, without creating
anything: `kubectl apply --dry-run=server` of every overlay, of every optional component on
the overlay it is meant for, and of every cluster-wide file an admin applies once, with the CRDs
they need installed from the vendored, byte-identical upstream files (tests/data/schemas: Kueue
0.19.2, the MPI Operator 0.8.0, Karpenter 1.14.1, the Prometheus Operator's PodMonitor and
PrometheusRule, LWS, JobSet). None may be rejected. The offline check (scripts/check-manifests)
reads the same files against the 1.32 and 1.35 schemas; this is the 1.35 server itself:
defaulting, every cross-field rule, CRD schemas with their CEL rules.

A CRD the cluster already has (LWS and JobSet of the real controllers, scripts/kube controllers)
is used as it is and left alone: this test installs only the missing ones and deletes only those,
or the scenarios of the real controllers would find their CRDs gone (ctest's lock `kube_crds`
keeps it apart from their installs).
"""
import glob
import os
import secrets
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubetest.cluster import REPO, kube_env, kubectl  # noqa: E402
from kubetest.testing import eq, main  # noqa: E402

MANIFESTS = os.path.join(REPO, "manifests")
SCHEMAS = os.path.join(REPO, "tests", "data", "schemas")
CRDS = ["kueue.x-k8s.io_*.v0.19.2.yaml", "kubeflow.org_mpijobs.v0.8.0.yaml", "karpenter.*.yaml",
        "monitoring.coreos.com_*.yaml",
        # The workload APIs of overlays/lws and overlays/jobset (their controllers are not needed for a dry run).
        "leaderworkerset.x-k8s.io_*.yaml", "jobset.x-k8s.io_*.yaml"]
# Each component on the overlay it is meant for, after the components it needs.
COMPONENTS = {
    "auth-token": ("p5", []), "auth-k8s-token": ("p5", []), "gcs-ft": ("p5", []), "gcs-ft-tls": ("p5", ["gcs-ft"]),
    "gcs-ft-rocksdb": ("p5", []),
    "hugepages": ("p5", []), "kueue": ("p5", []), "kueue-topology": ("p5", ["kueue"]),
    "p4de": ("indexed-job", []), "p5": ("single-node", []), "priority": ("p5", []),
    "local-cpu": ("indexed-job", []), "restart-in-place": ("indexed-job", []),
    "prometheus-operator": ("p5", []),
}
CLUSTER_WIDE = ["components/kueue/queues.yaml", "components/kueue/queues-topology.yaml",
                "components/auth-k8s-token/token-review.yaml",
                "components/prometheus-operator/alerts.yaml",
                "components/priority/priorityclass.yaml", "components/hugepages/nodeoverlay.yaml",
                "karpenter/gpu-training.yaml", "storage/fsx-lustre-static.yaml"]


def crd_files():
    return sorted(f for pattern in CRDS for f in glob.glob(os.path.join(SCHEMAS, pattern)))


def crd_name(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)["metadata"]["name"]


def dry_run(env, ns, *args):
    proc = kubectl("apply", "--dry-run=server", *(["-n", ns] if ns else []), *args, check=False, env=env)
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def namespaces_named(path):
    """The namespaces a cluster-wide file's namespaced objects name (a LocalQueue in `rlinf`)."""
    with open(path) as f:
        return {d["metadata"]["namespace"] for d in yaml.safe_load_all(f) if d and d["metadata"].get("namespace")}


def test_every_overlay_component_and_cluster_file_is_accepted():
    env = kube_env()
    ns = f"dryrun-{secrets.token_hex(3)}"
    crds = crd_files()
    assert len(crds) >= 7, crds
    kubectl("create", "namespace", ns, env=env)
    made = {ns}
    ours = []  # the CRD files this test installed: the only ones it deletes
    try:
        for f in crds:
            name = crd_name(f)
            if kubectl("get", "crd", name, check=False, env=env).returncode == 0:
                continue
            ours.append(f)
            kubectl("apply", "--server-side", "-f", f, env=env)
        names = [crd_name(f) for f in crds]
        kubectl("wait", "--for=condition=Established", "--timeout=60s", *[f"crd/{n}" for n in names], env=env)
        rejected = []
        overlays = sorted(d for d in glob.glob(os.path.join(MANIFESTS, "overlays", "*")) if os.path.isdir(d))
        assert len(overlays) >= 9, overlays
        for d in overlays:
            code, out = dry_run(env, ns, "-k", d)
            if code:
                rejected.append(f"overlays/{os.path.basename(d)}: {out}")
        components = sorted(os.path.basename(d) for d in glob.glob(os.path.join(MANIFESTS, "components", "*")))
        eq(components, sorted(COMPONENTS), "components (a new one needs its overlay here)")
        for comp, (overlay, needs) in COMPONENTS.items():
            with tempfile.TemporaryDirectory(prefix="kube-dryrun-") as tmp:
                kust = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                        "resources": [os.path.relpath(os.path.join(MANIFESTS, "overlays", overlay), tmp)],
                        "components": [os.path.relpath(os.path.join(MANIFESTS, "components", c), tmp)
                                       for c in needs + [comp]]}
                with open(os.path.join(tmp, "kustomization.yaml"), "w") as f:
                    yaml.safe_dump(kust, f)
                code, out = dry_run(env, ns, "-k", tmp)
                if code:
                    rejected.append(f"components/{comp} on overlays/{overlay}: {out}")
        for rel in CLUSTER_WIDE:
            path = os.path.join(MANIFESTS, rel)
            for other in namespaces_named(path) - made:  # the dry run still needs them to exist
                if kubectl("get", "namespace", other, check=False, env=env).returncode != 0:
                    kubectl("create", "namespace", other, env=env)
                    made.add(other)
            code, out = dry_run(env, None, "-f", path)
            if code:
                rejected.append(f"{rel}: {out}")
        assert not rejected, "rejected by the API server:\n" + "\n".join(rejected)
    finally:
        for n in made:
            kubectl("delete", "namespace", n, "--wait=false", check=False, env=env)
        for f in ours:  # waited for: a CRD still terminating would break the next install of it
            kubectl("delete", "-f", f, "--ignore-not-found", "--timeout=60s", check=False, env=env)


main(test_every_overlay_component_and_cluster_file_is_accepted)
