"""What a test applies: an overlay rendered by `kubectl kustomize` (resized as a user's own
overlay would be: tests/cluster/harness/manifest.py), its pod template changed by the test
(tests/cluster/harness/overrides.py: the launch command, env, probes, time scaling), then
made valid for a real API server: whole seconds, at least 1, where the emulation allowed
fractions. Pure: documents in, documents out.
"""
import copy
import math
import os
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "cluster"))
from harness import manifest  # noqa: E402
from harness.manifest import ManifestError, parse  # noqa: E402,F401
from harness.overrides import PROBES, Overrides  # noqa: E402

OVERLAYS = os.path.join(REPO, "manifests", "overlays")
COMPONENTS = os.path.join(REPO, "manifests", "components")

WORKLOAD_KINDS = ("StatefulSet", "Job", "LeaderWorkerSet", "JobSet")
HOLD_GATE = "raylaunch.test/hold"  # a scheduling gate: a pod that stays unscheduled on cue


def render(overlay, replicas=None, components=()):
    """`kubectl kustomize` of the overlay, with the kit's `components` added as a user's own
    overlay adds them (a throw-away kustomization naming the overlay and the components)."""
    if not components:
        return manifest.render(overlay, replicas)
    base = overlay if os.path.isdir(overlay) else os.path.join(OVERLAYS, overlay)
    with tempfile.TemporaryDirectory(prefix="kube-kustomize-") as tmp:
        kust = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                "resources": [os.path.relpath(base, tmp)],
                "components": [os.path.relpath(os.path.join(COMPONENTS, c), tmp) for c in components]}
        with open(os.path.join(tmp, "kustomization.yaml"), "w") as f:
            yaml.safe_dump(kust, f)
        return manifest.render(tmp, replicas)


def workload(docs):
    found = [d for d in docs if d.get("kind") in WORKLOAD_KINDS]
    if len(found) != 1:
        raise ManifestError(f"expected one of {', '.join(WORKLOAD_KINDS)}, found {[d.get('kind') for d in found]}")
    return found[0]


def pod_templates(work):
    """Every pod template of the workload: a StatefulSet's or Job's one; a LeaderWorkerSet's
    leader and worker templates; each replicated Job's of a JobSet. The test's changes go to
    all of them, as a user's own overlay would change every pod of the run."""
    spec = work["spec"]
    kind = work["kind"]
    if kind == "LeaderWorkerSet":
        lwt = spec["leaderWorkerTemplate"]
        return [t for t in (lwt.get("leaderTemplate"), lwt["workerTemplate"]) if t]
    if kind == "JobSet":
        return [rj["template"]["spec"]["template"] for rj in spec["replicatedJobs"]]
    return [spec["template"]]


def whole_seconds(template):
    """The API takes whole seconds >= 1 for probe periods (>= 0 for delays and graces)."""
    spec = template["spec"]
    if "terminationGracePeriodSeconds" in spec:
        spec["terminationGracePeriodSeconds"] = max(1, math.ceil(spec["terminationGracePeriodSeconds"]))
    for c in spec["containers"]:
        for field in PROBES.values():
            probe = c.get(field)
            if not probe:
                continue
            probe["periodSeconds"] = max(1, math.ceil(probe.get("periodSeconds", 10)))
            if "initialDelaySeconds" in probe:
                probe["initialDelaySeconds"] = math.ceil(probe["initialDelaySeconds"])
            if "terminationGracePeriodSeconds" in probe:
                probe["terminationGracePeriodSeconds"] = max(1, math.ceil(probe["terminationGracePeriodSeconds"]))


def prepare(docs, overrides=None, gated=False, mutate=None):
    """The documents with the test's changes to the workload's pod template. `gated`: every
    pod is created behind a scheduling gate (KubeRun releases each unless the test holds it),
    so a test can keep one unscheduled — a node still booting — with the real scheduler."""
    docs = copy.deepcopy(docs)
    for template in pod_templates(workload(docs)):
        if overrides is not None:
            overrides.apply(template)
        whole_seconds(template)
        if gated:
            template["spec"].setdefault("schedulingGates", []).append({"name": HOLD_GATE})
        if mutate is not None:
            mutate(template)
    return docs


def overrides(launch=None, env=None, probes=None, time_scale=1.0, grace=None, **kw):
    return Overrides(launch=launch, env=env, probes=probes, time_scale=time_scale, grace=grace, **kw)
