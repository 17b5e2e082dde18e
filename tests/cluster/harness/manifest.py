"""The objects the harness runs: rendered with `kubectl kustomize` from the real overlays.

`render(overlay, replicas=N)` builds `manifests/overlays/<overlay>` the way a user's own
overlay would resize it: a throw-away kustomization that names the overlay as its base, sets
the StatefulSet's replicas or the Job's completions, and repeats the overlay's replacement
into RAYLAUNCH_NODES (kustomize runs replacements per kustomization, so the base's own
replacement has already run with the old count).
"""
import os
import shutil
import subprocess
import tempfile

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
OVERLAYS = os.path.join(REPO, "manifests", "overlays")


class ManifestError(Exception):
    pass


def kubectl():
    path = shutil.which("kubectl")
    if not path:
        raise ManifestError("kubectl not found: the harness renders the overlays with "
                            "`kubectl kustomize` (install kubectl >= 1.27)")
    return path


def _resize_kustomization(base, docs, replicas):
    work = _workload(docs)
    name = work["metadata"]["name"]
    kind = work["kind"]
    kust = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
            "resources": [base]}
    env_path = "spec.template.spec.containers.[name=ray].env.[name=RAYLAUNCH_NODES].value"
    if kind == "StatefulSet":
        kust["replicas"] = [{"name": name, "count": replicas}]
        source, targets = "spec.replicas", [env_path]
    else:
        kust["patches"] = [{"target": {"kind": "Job", "name": name},
                            "patch": yaml.safe_dump([{"op": "replace", "path": "/spec/completions",
                                                      "value": replicas}])}]
        source, targets = "spec.completions", ["spec.parallelism", env_path]
    kust["replacements"] = [{"source": {"kind": kind, "name": name, "fieldPath": source},
                             "targets": [{"select": {"kind": kind, "name": name},
                                          "fieldPaths": targets}]}]
    return kust


def render(overlay, replicas=None):
    """YAML documents (dicts) of `kubectl kustomize manifests/overlays/<overlay>`; `overlay`
    may also be a path to any kustomize directory."""
    path = overlay if os.path.isdir(overlay) else os.path.join(OVERLAYS, overlay)
    if not os.path.isdir(path):
        raise ManifestError(f"no such overlay: {overlay} (expected a directory under {OVERLAYS})")
    docs = _kustomize(path)
    if replicas is None:
        return docs
    with tempfile.TemporaryDirectory(prefix="rlc-kustomize-") as tmp:
        with open(os.path.join(tmp, "kustomization.yaml"), "w") as f:
            # kustomize takes only relative paths to other kustomizations.
            base = os.path.relpath(os.path.abspath(path), tmp)
            yaml.safe_dump(_resize_kustomization(base, docs, replicas), f)
        return _kustomize(tmp)


def _kustomize(path):
    proc = subprocess.run([kubectl(), "kustomize", path], capture_output=True, text=True)
    if proc.returncode != 0:
        raise ManifestError(f"kubectl kustomize {path} failed: {proc.stderr.strip()}")
    return parse(proc.stdout)


def parse(text):
    return [d for d in yaml.safe_load_all(text) if d]


def load(path):
    with open(path) as f:
        return parse(f.read())


def _workload(docs):
    found = [d for d in docs if d.get("kind") in ("StatefulSet", "Job")]
    if len(found) != 1:
        kinds = ", ".join(sorted({d.get("kind", "?") for d in docs}))
        raise ManifestError(f"expected exactly one StatefulSet or Job, found {len(found)} "
                            f"(kinds: {kinds})")
    return found[0]


def workload(docs):
    """The one StatefulSet or Job of a build."""
    return _workload(docs)


def workloads(docs):
    """What the harness runs: every StatefulSet and Indexed Job (other Jobs, e.g. a Redis
    clean-up hook, are not run)."""
    return [d for d in docs if d.get("kind") == "StatefulSet"
            or (d.get("kind") == "Job" and d["spec"].get("completionMode") == "Indexed")]


def config_maps(docs):
    return {d["metadata"]["name"]: dict(d.get("data") or {}) for d in docs if d.get("kind") == "ConfigMap"}


def services(docs):
    return [d for d in docs if d.get("kind") == "Service"]
