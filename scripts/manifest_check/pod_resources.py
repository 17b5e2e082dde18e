"""What a pod asks of a node: its effective requests and the instance types it may land on.

Effective requests follow the scheduler (Kubernetes "Resource sharing within containers"): the
sum over the app containers and the sidecars (init containers with restartPolicy: Always), or
the largest plain init container when that is more. A container that gives a limit but no
request for a resource requests its limit (the API server defaults it so).
"""
from . import quantity
from .instance_types import INSTANCE_TYPE_LABELS
from .objects import dig


def container_requests(container):
    """resource name -> Fraction, the request, or the limit when only a limit is given."""
    resources = container.get("resources") or {}
    limits = resources.get("limits") or {}
    requests = resources.get("requests") or {}
    out = {}
    for name in set(limits) | set(requests):
        value = quantity.parse(requests[name] if name in requests else limits[name])
        if value is not None:
            out[str(name)] = value
    return out


def pod_requests(pod_spec):
    """resource name -> Fraction for the whole pod."""
    total = {}
    plain_init = []
    for container in pod_spec.get("containers") or []:
        if isinstance(container, dict):
            for name, value in container_requests(container).items():
                total[name] = total.get(name, 0) + value
    for container in pod_spec.get("initContainers") or []:
        if not isinstance(container, dict):
            continue
        if container.get("restartPolicy") == "Always":  # a sidecar runs beside the app containers
            for name, value in container_requests(container).items():
                total[name] = total.get(name, 0) + value
        else:
            plain_init.append(container_requests(container))
    for init in plain_init:
        for name, value in init.items():
            total[name] = max(total.get(name, 0), value)
    return total


def instance_types(pod_spec):
    """The instance types the pod's nodeSelector or required node affinity allows, or None."""
    allowed = None
    for label in INSTANCE_TYPE_LABELS:
        value = (pod_spec.get("nodeSelector") or {}).get(label)
        if isinstance(value, str):
            allowed = {value}
    terms = dig(pod_spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                "nodeSelectorTerms") or []
    from_terms = set()
    for term in terms:
        expressions = (term.get("matchExpressions") or []) if isinstance(term, dict) else []
        values = [set(map(str, e.get("values") or [])) for e in expressions
                  if isinstance(e, dict) and e.get("key") in INSTANCE_TYPE_LABELS and e.get("operator") == "In"]
        if not values:
            return allowed  # terms are ORed: one without an instance type allows any
        from_terms |= set.intersection(*values)
    if from_terms:
        allowed = from_terms if allowed is None else allowed & from_terms
    return allowed
