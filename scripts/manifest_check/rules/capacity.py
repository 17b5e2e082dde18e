"""Rules on what nodes can give: pod requests against one node of their instance type
(`capacity`), the huge pages a Karpenter NodeOverlay declares (`node-overlay`), and a GPU
training NodePool and its EC2NodeClass (`node-pool`). The numbers are in instance_types.py.
"""
import re

from .. import quantity
from ..instance_types import EFA, EFA_AMI_HUGEPAGES, GPU, HUGEPAGES_2MI, INSTANCE_TYPE_LABELS, INSTANCE_TYPES, allocatable
from ..objects import dig, pod_templates
from ..pod_resources import instance_types, pod_requests

CHECKED = ("cpu", "memory", GPU, EFA, HUGEPAGES_2MI)
WHY = {
    "cpu": "its vCPUs less the kubelet's reserved CPU",
    "memory": "Karpenter's model: the instance's memory less 7.5 % VM overhead and the kubelet's reservation",
    GPU: "GPUs per node",
    EFA: "EFA interfaces per node",
    HUGEPAGES_2MI: "EKS's EFA AMIs preallocate 5128 pages of 2 MiB",
}
UNITS = {"cpu": "cores", "memory": "bytes", GPU: "devices", EFA: "devices", HUGEPAGES_2MI: "bytes"}
# An extended resource: a domain-prefixed name (example.com/foo), which a NodeOverlay may add.
EXTENDED = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
# The CRD's CEL rule ("invalid resource restricted"): a NodeOverlay cannot change these.
OVERLAY_RESTRICTED = {"cpu", "memory", "ephemeral-storage", "pods"}


def capacity_rules(doc):
    problems = []
    for where, template in pod_templates(doc):
        requests = pod_requests(template["spec"])
        allowed = instance_types(template["spec"])
        if allowed is None:
            if not any(requests.get(r, 0) > 0 for r in (GPU, EFA)):
                continue  # a CPU pod that may land on any node
            allowed = set(INSTANCE_TYPES)
        known = sorted(t for t in allowed if t in INSTANCE_TYPES)
        if not known:
            continue  # an instance type the table does not know: nothing to compare with
        for resource in CHECKED:
            wanted = requests.get(resource)
            if not wanted:
                continue
            offers = {t: allocatable(t)[resource][0] for t in known}
            if any(wanted <= offer for offer in offers.values()):
                continue
            most = max(offers.values())
            types = f"a {known[0]} node" if len(known) == 1 else f"a node of any of {', '.join(known)}"
            unit = UNITS[resource]
            problems.append(f"rule capacity: {where} requests {quantity.show(wanted, unit)} {resource} per pod, but "
                            f"{types} offers at most {quantity.show(most, unit)} ({WHY[resource]}): no node "
                            "can take the pod, it stays Pending and Karpenter launches nothing for it")
    return problems


def overlay_instance_types(spec):
    for requirement in spec.get("requirements") or []:
        if isinstance(requirement, dict) and requirement.get("key") in INSTANCE_TYPE_LABELS \
                and requirement.get("operator") == "In":
            return [str(v) for v in requirement.get("values") or []]
    return None


def node_overlay_rules(doc):
    spec = doc.get("spec") or {}
    problems = []
    for key, value in (spec.get("capacity") or {}).items():
        key = str(key)
        if key in OVERLAY_RESTRICTED:
            problems.append(f"rule node-overlay: spec.capacity.{key}: a NodeOverlay cannot change {key} (Karpenter's "
                            "CRD rejects it: invalid resource restricted)")
        elif key != HUGEPAGES_2MI and not EXTENDED.fullmatch(key):
            problems.append(f"rule node-overlay: spec.capacity.{key} is not a resource a pod can request: resource "
                            f"names are case-sensitive, and the pods ask for exactly {HUGEPAGES_2MI} (or a "
                            "domain-prefixed extended resource)")
        elif key == HUGEPAGES_2MI:
            amount = quantity.parse(value)
            types = overlay_instance_types(spec)
            if types is None:
                problems.append(f"rule node-overlay: spec.capacity.{key} applies to every instance type; only nodes "
                                "with the EFA driver preallocate huge pages: add a requirement on "
                                "node.kubernetes.io/instance-type")
            elif amount is not None and amount > EFA_AMI_HUGEPAGES:
                problems.append(f"rule node-overlay: spec.capacity.{key} {value} is more than the nodes have: EKS's "
                                "EFA AMIs preallocate 5128 pages of 2 MiB (10256Mi); Karpenter would launch nodes for "
                                "pods the kubelet then cannot place")
    return problems


def gpu_node_pool(doc):
    """Whether a NodePool launches the GPU instance types of the table."""
    if doc.get("kind") != "NodePool":
        return False
    requirements = dig(doc, "spec", "template", "spec", "requirements") or []
    types = next((r.get("values") or [] for r in requirements
                  if isinstance(r, dict) and r.get("key") in INSTANCE_TYPE_LABELS), [])
    return any(t in INSTANCE_TYPES for t in types)


def node_pool_rules(docs):
    """(index, message) for GPU training NodePools and the EC2NodeClass each names in the same unit:
    no consolidation or expiry under a running job, the GPU taint, one subnet for EFA."""
    classes = {dig(d, "metadata", "name"): (i, d) for i, d in enumerate(docs) if d.get("kind") == "EC2NodeClass"}
    problems = []
    for index, doc in enumerate(docs):
        if not gpu_node_pool(doc):
            continue
        spec = doc.get("spec") or {}
        template = dig(spec, "template", "spec") or {}
        policy = dig(spec, "disruption", "consolidationPolicy", default="WhenEmptyOrUnderutilized")
        if policy != "WhenEmpty":
            problems.append((index, f"rule node-pool: spec.disruption.consolidationPolicy {policy} lets Karpenter "
                                    "replace nodes that run pods; a GPU training pool uses WhenEmpty"))
        if template.get("expireAfter", "720h") != "Never":
            problems.append((index, "rule node-pool: spec.template.spec.expireAfter "
                                    f"{template.get('expireAfter', '720h (the default)')}: expiry is forceful and "
                                    "drains a node under a running job; use Never and replace nodes between runs"))
        taints = {t.get("key") for t in template.get("taints") or [] if isinstance(t, dict)}
        if GPU not in taints:
            problems.append((index, f"rule node-pool: spec.template.spec.taints lack {GPU}: other pods would take "
                                    "the GPU nodes' CPUs and memory"))
        ref = dig(template, "nodeClassRef", "name")
        if ref in classes:
            class_index, node_class = classes[ref]
            terms = dig(node_class, "spec", "subnetSelectorTerms") or []
            if not (len(terms) == 1 and isinstance(terms[0], dict) and set(terms[0]) == {"id"}):
                problems.append((class_index, "rule node-pool: spec.subnetSelectorTerms must select one subnet by id "
                                              f"(NodePool {dig(doc, 'metadata', 'name')} launches EFA instances): "
                                              "EFA's OS-bypass traffic does not leave its subnet, so nodes in two "
                                              "subnets cannot talk over EFA"))
    return problems
