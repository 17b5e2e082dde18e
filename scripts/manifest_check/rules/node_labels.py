"""Rule `node-labels` (issue 28): what a raylaunch pod says about its node through Ray's labels
(docs/run.md#ray-node-labels) must be what the node is.

- RAYLAUNCH_ZONE / RAYLAUNCH_REGION come from the pod's own topology label through the Downward
  API (metadata.labels['topology.kubernetes.io/zone'], which Kubernetes 1.35+ copies from the
  node: admission plugin PodTopologyLabels, feature gate PodTopologyLabelsAdmission, beta and on
  by default in 1.35, alpha and off in 1.33-1.34), or, as a literal, equal the nodeSelector that
  pins the pod there.
- RAYLAUNCH_CAPACITY_TYPE is a value raylaunch takes (Karpenter's on-demand, spot, reserved;
  EKS's ON_DEMAND, SPOT, CAPACITY_BLOCK) and the pod pins the same capacity type through its
  nodeSelector or required node affinity (karpenter.sh/capacity-type or
  eks.amazonaws.com/capacityType): no Downward API reaches a node's other labels, so an unpinned
  value could name a capacity type the pod did not land on.
- RAYLAUNCH_NODE_LABELS is key=value,... in Kubernetes label syntax (as raylaunch and Ray check it);
  RAYLAUNCH_DEFAULT_LABELS is on or off.
"""
import re

from ..objects import dig, env_entry, env_literal

ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
KARPENTER, EKS = "karpenter.sh/capacity-type", "eks.amazonaws.com/capacityType"
# Each accepted spelling, as the capacity type raylaunch reads it.
CAPACITY_TYPES = {"on-demand": "on-demand", "spot": "spot", "reserved": "reserved",
                  "ON_DEMAND": "on-demand", "SPOT": "spot", "CAPACITY_BLOCK": "reserved"}
NAME = r"[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?"
PREFIX = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*"


def label_key_ok(key):
    prefix, _, name = key.rpartition("/")
    if "/" in key and (len(prefix) > 253 or not re.fullmatch(PREFIX, prefix)):
        return False
    return bool(re.fullmatch(NAME, name))


def label_value_ok(value):
    return value == "" or bool(re.fullmatch(NAME, value))


def pinned(pod_spec, key):
    """The single value the pod's nodeSelector or every required node-affinity term pins `key` to."""
    selector = (pod_spec.get("nodeSelector") or {}).get(key)
    if selector is not None:
        return str(selector)
    terms = dig(pod_spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                "nodeSelectorTerms") or []
    values = set()
    for term in terms:
        found = [e for e in (term or {}).get("matchExpressions") or []
                 if e.get("key") == key and e.get("operator") == "In" and len(e.get("values") or []) == 1]
        if not found:
            return None
        values.add(str(found[0]["values"][0]))
    return values.pop() if len(values) == 1 else None


def topology_rules(here, pod_spec, container, name, key):
    entry = env_entry(container, name)
    if entry is None:
        return []
    present, literal = env_literal(container, name)
    if present and literal is None:
        path = dig(entry, "valueFrom", "fieldRef", "fieldPath")
        if path != f"metadata.labels['{key}']":
            return [f"rule node-labels: {here}.env {name} must come from the pod's own label (fieldRef "
                    f"metadata.labels['{key}'], which Kubernetes 1.35+ copies from the node), got {path!r}"]
        return []
    if literal and pinned(pod_spec, key) != literal:
        return [f"rule node-labels: {here}.env {name}={literal} names a {key.rsplit('/', 1)[1]} the pod is not pinned "
                f"to: take it from the Downward API (fieldRef metadata.labels['{key}']) or add nodeSelector "
                f"{key}: {literal}"]
    return []


def capacity_rules(here, pod_spec, container):
    present, literal = env_literal(container, "RAYLAUNCH_CAPACITY_TYPE")
    if not present:
        return []
    if literal is None:
        return [f"rule node-labels: {here}.env RAYLAUNCH_CAPACITY_TYPE must be a literal that the pod's nodeSelector "
                f"pins ({KARPENTER} or {EKS}): no Downward API field holds a node's capacity type"]
    if literal == "":
        return []
    wanted = CAPACITY_TYPES.get(literal)
    if wanted is None:
        return [f"rule node-labels: {here}.env RAYLAUNCH_CAPACITY_TYPE={literal!r} is not one raylaunch takes "
                f"({', '.join(CAPACITY_TYPES)})"]
    pins = [CAPACITY_TYPES.get(v) for v in (pinned(pod_spec, KARPENTER), pinned(pod_spec, EKS)) if v is not None]
    if wanted not in pins:
        return [f"rule node-labels: {here}.env RAYLAUNCH_CAPACITY_TYPE={literal} but the pod is not pinned to that "
                f"capacity type: add nodeSelector {KARPENTER}: {wanted} (or {EKS}), or Ray's label "
                f"ray.io/market-type may name one the node is not"]
    return []


def extra_rules(here, container):
    problems = []
    present, labels = env_literal(container, "RAYLAUNCH_NODE_LABELS")
    if present and labels:
        keys = []
        for pair in labels.split(","):
            key, eq, value = pair.partition("=")
            keys.append(key.strip())
            if not eq or not label_key_ok(key.strip()) or not label_value_ok(value.strip()):
                problems.append(f"rule node-labels: {here}.env RAYLAUNCH_NODE_LABELS: {pair!r} is not key=value in "
                                "Kubernetes label syntax (raylaunch exits 64)")
        if len(set(keys)) != len(keys):
            problems.append(f"rule node-labels: {here}.env RAYLAUNCH_NODE_LABELS names a key twice (raylaunch exits 64)")
    present, switch = env_literal(container, "RAYLAUNCH_DEFAULT_LABELS")
    if present and switch not in (None, "", "on", "off"):
        problems.append(f"rule node-labels: {here}.env RAYLAUNCH_DEFAULT_LABELS={switch!r} must be on or off")
    return problems


def node_label_rules(here, pod_spec, container):
    """Every node-labels problem of one `raylaunch run` container."""
    return (topology_rules(here, pod_spec, container, "RAYLAUNCH_ZONE", ZONE)
            + topology_rules(here, pod_spec, container, "RAYLAUNCH_REGION", REGION)
            + capacity_rules(here, pod_spec, container) + extra_rules(here, container))
