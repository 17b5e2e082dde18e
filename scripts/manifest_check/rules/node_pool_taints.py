"""Rule node-pool-taints: a pod whose nodeSelector picks one of the kit's Karpenter NodePools
tolerates that pool's taints.

The kit's pool (manifests/karpenter/gpu-training.yaml) taints its nodes nvidia.com/gpu and
vpc.amazonaws.com/efa so that only training pods land there. A pod that selects the pool's label
but lacks one of the tolerations never schedules on its nodes, and Karpenter launches none for it
(it simulates the taints before it launches): the pod stays Pending, with nothing in the
manifests to say why.

The pools come from the checked files and builds and, by default, from the kit's own
manifests/karpenter (cli.py, --node-pools), so an overlay checked alone still meets them.

A pool is picked when its labels (spec.template.metadata.labels, or karpenter.sh/nodepool: <name>)
match a key of the nodeSelector and every other key is one it can satisfy: a requirement that
allows the value, or a well-known label Karpenter sets itself (zone, instance type, ...). A pod
that several pools could take needs to tolerate one of them whole. Taints with PreferNoSchedule
do not keep pods off; startupTaints are removed once a node is up and need no toleration.
Tolerations match as the scheduler matches them (k8s.io/api core/v1 Toleration.ToleratesTaint).
"""
import json

from ..objects import dig, pod_templates

RULE = "node-pool-taints"
NODE_POOL_LABEL = "karpenter.sh/nodepool"
# Labels Karpenter puts on the nodes it launches from what it knows of the instance, without the
# pool naming them (Karpenter's well-known labels; kubernetes.io/arch, .../zone, instance type...).
WELL_KNOWN_PREFIXES = ("kubernetes.io/", "beta.kubernetes.io/", "node.kubernetes.io/", "topology.kubernetes.io/",
                       "karpenter.sh/", "karpenter.k8s.aws/", "topology.k8s.aws/")
BLOCKING = ("NoSchedule", "NoExecute")


def tolerates(toleration, taint):
    """Whether one toleration tolerates one taint."""
    if not isinstance(toleration, dict):
        return False
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if (toleration.get("operator") or "Equal") == "Exists":
        return key in ("", taint.get("key"))
    return key == taint.get("key") and str(toleration.get("value") or "") == str(taint.get("value") or "")


def requirement_allows(requirement, value):
    operator, values = requirement.get("operator"), [str(v) for v in requirement.get("values") or []]
    if operator == "In":
        return value in values
    if operator == "NotIn":
        return value not in values
    if operator == "Exists":
        return True
    if operator in ("Gt", "Lt") and values and value.lstrip("-").isdigit() and values[0].lstrip("-").isdigit():
        return int(value) > int(values[0]) if operator == "Gt" else int(value) < int(values[0])
    return False  # DoesNotExist, or what cannot be compared


def picks(selector, pool):
    """Whether a nodeSelector picks this NodePool (module docstring)."""
    name = dig(pool, "metadata", "name")
    labels = dig(pool, "spec", "template", "metadata", "labels") or {}
    requirements = {r.get("key"): r for r in dig(pool, "spec", "template", "spec", "requirements") or []
                    if isinstance(r, dict)}
    named = False
    for key, value in selector.items():
        value = str(value)
        if key == NODE_POOL_LABEL:
            if value != name:
                return False
            named = True
        elif key in labels:
            if str(labels[key]) != value:
                return False
            named = True
        elif key in requirements:
            if not requirement_allows(requirements[key], value):
                return False
        elif not key.startswith(WELL_KNOWN_PREFIXES):
            return False
    return named


def untolerated(tolerations, pool):
    """The pool's blocking taints that no toleration tolerates."""
    taints = [t for t in dig(pool, "spec", "template", "spec", "taints") or []
              if isinstance(t, dict) and t.get("effect") in BLOCKING]
    return [t for t in taints if not any(tolerates(tol, t) for tol in tolerations)]


def describe(taint):
    value = f"={taint['value']}" if taint.get("value") else ""
    return f"{taint.get('key')}{value}:{taint.get('effect')}"


def node_pool_taint_rules(units, pools):
    """units: (source, docs) of every checked build and file; pools: (source, NodePool) of the
    pools to check against. Returns (source, index, message)."""
    problems = []
    for source, docs in units:
        for index, doc in enumerate(docs):
            for where, template in pod_templates(doc):
                spec = template.get("spec") or {}
                selector = spec.get("nodeSelector")
                if not isinstance(selector, dict) or not selector:
                    continue
                picked = [(origin, pool) for origin, pool in pools if picks(selector, pool)]
                tolerations = [t for t in spec.get("tolerations") or [] if isinstance(t, dict)]
                missing = [(origin, pool, untolerated(tolerations, pool)) for origin, pool in picked]
                if not missing or any(not taints for _, _, taints in missing):
                    continue
                pools_text = "; ".join(
                    f"{', '.join(describe(t) for t in taints)} of NodePool {dig(pool, 'metadata', 'name')} ({origin})"
                    for origin, pool, taints in missing)
                wanted = {(t.get("key"), t.get("effect")) for _, _, taints in missing[:1] for t in taints}
                fix = json.dumps([{"key": k, "operator": "Exists", "effect": e} for k, e in sorted(wanted)])
                problems.append((source, index, (
                    f"rule {RULE}: {where}.nodeSelector {json.dumps(selector, sort_keys=True)} picks a node pool whose "
                    f"taints {where}.tolerations do not tolerate: {pools_text}. The scheduler never places the pod on "
                    f"those nodes and Karpenter launches none for it, so it stays Pending; add to its tolerations "
                    f"{fix}")))
    return problems


def pools_of(units):
    """(source, NodePool) for the NodePools among the units."""
    return [(source, doc) for source, docs in units for doc in docs
            if isinstance(doc, dict) and doc.get("kind") == "NodePool"]
