#!/usr/bin/python3
"""The kit's `kueue` component admitted by the real Kueue (v0.17.0, built from its Go module and
installed from its release manifests by scripts/kube controllers): the local StatefulSet overlay
with the component, a LocalQueue `training` in the test's namespace, a ClusterQueue of this
node's CPU flavor.

- Quota for 2 of the 3 pods: Kueue admits none of them. Every pod stays behind Kueue's
  scheduling gate, unscheduled, so no partial cluster holds a node's resources and no raylaunch
  waits out its join timeout; the Workload says why (insufficient quota).
- The quota raised to 3 pods: Kueue admits all three at once, the scheduler places them, the
  cluster forms (3/3 nodes alive) and the Ray program runs on every pod; with waitForPodsReady on
  (scripts/kube's Kueue configuration, as docs/deploy.md asks of users) the Workload is PodsReady
  once every pod is Ready, which raylaunch's readiness makes "joined".

Kueue's pod webhook sees every pod of the cluster (failurePolicy Fail), so it is installed for
this file only and taken away after it.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.cluster import REPO  # noqa: E402
from kubetest.scenario import assert_program_saw, raylaunch_run, wait_log  # noqa: E402
from kubetest.testing import eq, main  # noqa: E402

PODS = ["training-0", "training-1", "training-2"]
KUEUE = "/apis/kueue.x-k8s.io/v1beta2"
GATE = "kueue.x-k8s.io/admission"
# The local overlay's requests per pod (manifests/components/local-cpu): Kueue admits a workload
# only if every resource its pods request is covered.
PER_POD = {"cpu": 0.25, "memory": 1, "ephemeral-storage": 1}  # CPUs, Gi, Gi


def quota(pods):
    return [{"name": "cpu", "nominalQuota": f"{int(PER_POD['cpu'] * pods * 1000)}m"},
            {"name": "memory", "nominalQuota": f"{PER_POD['memory'] * pods}Gi"},
            {"name": "ephemeral-storage", "nominalQuota": f"{PER_POD['ephemeral-storage'] * pods}Gi"}]


def queues(namespace, pods):
    flavor = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
              "metadata": {"name": "raylaunch-local"}, "spec": {}}
    cq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
          "metadata": {"name": f"q-{namespace}"},
          "spec": {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
                   "resourceGroups": [{"coveredResources": ["cpu", "memory", "ephemeral-storage"],
                                       "flavors": [{"name": "raylaunch-local", "resources": quota(pods)}]}]}}
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
          "metadata": {"name": "training", "namespace": namespace},
          "spec": {"clusterQueue": f"q-{namespace}"}}
    return [flavor, cq, lq]


def kueue(*args):
    subprocess.run([os.path.join(REPO, "scripts", "kube"), "controllers", *args, "kueue"], check=True)


def workloads(k):
    return k.api.get(f"{KUEUE}/namespaces/{k.namespace}/workloads").get("items", [])


def conditions(wl):
    return {c["type"]: (c["status"], c.get("message", "")) for c in wl.get("status", {}).get("conditions", [])}


def gated(pod):
    return any(g["name"] == GATE for g in pod.obj["spec"].get("schedulingGates") or [])


def test_quota_for_two_admits_none_then_three_admit_all():
    kueue()
    try:
        admission_by_quota()
    finally:
        kueue("--remove")


def admission_by_quota():
    with raylaunch_run("local", components=("kueue",)) as k:
        k.docs = queues(k.namespace, 2) + k.docs
        k.start()
        k.wait_for(lambda: all(k.pod(n) for n in PODS), 60, "the StatefulSet's 3 pods")
        wl = k.wait_for(lambda: (w := workloads(k)) and "insufficient quota" in
                        conditions(w[0]).get("QuotaReserved", ("", ""))[1] and w[0], 90,
                        "Kueue to find too little quota")
        eq(len(workloads(k)), 1, "Workloads (one for the StatefulSet's pods)")
        eq(conditions(wl).get("Admitted", ("False",))[0], "False", "admitted with quota for 2 of 3")
        for n in PODS:
            pod = k.pod(n)
            assert gated(pod), f"{n} is not behind Kueue's gate: {pod.obj['spec'].get('schedulingGates')}"
            assert not pod.obj["spec"].get("nodeName"), f"{n} was scheduled with quota for 2 of 3"
            assert not pod.runs, f"{n} ran before admission"

        k.api.patch(f"{KUEUE}/clusterqueues/q-{k.namespace}",
                    [{"op": "replace", "path": "/spec/resourceGroups/0/flavors/0/resources", "value": quota(3)}])
        k.wait_for(lambda: conditions(workloads(k)[0]).get("Admitted", ("",))[0] == "True", 90,
                   "Kueue to admit the Workload")
        wait_log(k, "training-0", "3/3 nodes alive", 300)
        wait_log(k, "training-0", "staying up (--on-success stay)", 300)
        assert_program_saw(k.pod("training-0").runs[0])
        for n in PODS:
            assert not gated(k.pod(n)), f"{n} still gated after admission"
        k.wait_for(lambda: conditions(workloads(k)[0]).get("PodsReady", ("",))[0] == "True", 120,
                   "the Workload PodsReady (every pod joined)")


main(test_quota_for_two_admits_none_then_three_admit_all)
