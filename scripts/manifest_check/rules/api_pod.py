"""The API server's cross-field rules for a pod template, checked offline (rule `api-server`).

The JSON schema sees one field at a time; these rules relate fields, as the API server's
validation does (kubernetes pkg/apis/core/validation/validation.go, v1.32): each names the
check it mirrors. A pod template that breaks one is rejected when applied (StatefulSet, Job)
or when its controller creates the pods (MPIJob), after the rest of the kit went in.

Implemented here (the list in docs/deploy.md "Check the manifests" follows this one):
 1. container names unique over initContainers and containers (validateContainers)
 2. volume names unique (ValidateVolumes); every volumeMount names a volume, each mountPath
    once per container (ValidateVolumeMounts)
 3. container port names unique in a container, containerPort 1-65535 (validateContainerPorts)
 4. requests <= limits for every resource; an extended resource (nvidia.com/gpu,
    vpc.amazonaws.com/efa) or huge pages: request = limit and a limit whenever a request is
    given (ValidateResourceRequirements, "must be equal to ... limit", "Limit must be set for
    non overcommitable resources"); huge pages need a cpu or memory request
 5. liveness and startup probes: successThreshold 1 (validateProbe callers)
 6. tolerations: operator Exists takes no value; tolerationSeconds only with NoExecute
    (ValidateTolerations)
 7. restartPolicy by controller: Always for StatefulSet, Deployment, DaemonSet, ReplicaSet
    (apps validation); OnFailure or Never for Job and CronJob (batch validation)
"""
from .. import quantity
from ..objects import containers, dig

NATIVE = {"cpu", "memory", "ephemeral-storage", "storage", "pods"}
RESTART_POLICIES = {
    "StatefulSet": {"Always"}, "Deployment": {"Always"}, "DaemonSet": {"Always"}, "ReplicaSet": {"Always"},
    "Job": {"OnFailure", "Never"}, "CronJob": {"OnFailure", "Never"},
}


def rule(message):
    return f"rule api-server: {message}"


def unique_names(where, items, what):
    seen, problems = set(), []
    for item in items:
        name = item.get("name") if isinstance(item, dict) else None
        if name is None:
            continue
        if name in seen:
            problems.append(rule(f'{where}: {what} "{name}" appears twice (Duplicate value); the API server rejects '
                                 "the object"))
        seen.add(name)
    return problems


def not_overcommitable(name):
    # Native resources may be overcommitted; huge pages and extended resources (a domain-prefixed
    # name outside kubernetes.io) may not (helper.IsOvercommitAllowed).
    return name.startswith("hugepages-") or ("/" in name and not name.split("/")[0].endswith("kubernetes.io"))


def resource_problems(here, container):
    resources = container.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    problems = []
    for name in sorted(set(requests) | set(limits), key=str):
        request, limit = quantity.parse(requests.get(name)), quantity.parse(limits.get(name))
        if name in requests and name in limits and request is not None and limit is not None:
            if not_overcommitable(str(name)) and request != limit:
                problems.append(rule(f"{here}.resources.requests[{name}] {requests[name]} must be equal to the {name} "
                                     f"limit {limits[name]} (it cannot be overcommitted)"))
            elif request > limit:
                problems.append(rule(f"{here}.resources.requests[{name}] {requests[name]} must be less than or equal "
                                     f"to the {name} limit {limits[name]}"))
        elif name in requests and name not in limits and not_overcommitable(str(name)):
            problems.append(rule(f"{here}.resources.limits[{name}]: a limit must be set for a resource that cannot "
                                 "be overcommitted (set it equal to the request)"))
    if any(str(n).startswith("hugepages-") for n in set(requests) | set(limits)) \
            and not {"cpu", "memory"} & (set(requests) | set(limits)):
        problems.append(rule(f"{here}.resources: huge pages require a cpu or memory request"))
    return problems


def container_problems(here, container, volumes):
    problems = unique_names(f"{here}.ports", container.get("ports") or [], "port name")
    for port in container.get("ports") or []:
        number = port.get("containerPort") if isinstance(port, dict) else None
        if isinstance(number, int) and not 1 <= number <= 65535:
            problems.append(rule(f"{here}.ports: containerPort {number} must be between 1 and 65535"))
    paths = set()
    for mount in container.get("volumeMounts") or []:
        if not isinstance(mount, dict):
            continue
        if mount.get("name") not in volumes:
            problems.append(rule(f'{here}.volumeMounts: "{mount.get("name")}" names no volume of the pod (Not found)'))
        if mount.get("mountPath") in paths:
            problems.append(rule(f'{here}.volumeMounts: mountPath "{mount.get("mountPath")}" is mounted twice'))
        paths.add(mount.get("mountPath"))
    problems += resource_problems(here, container)
    for probe in ("livenessProbe", "startupProbe"):
        threshold = dig(container, probe, "successThreshold")
        if isinstance(threshold, int) and threshold != 1:
            problems.append(rule(f"{here}.{probe}.successThreshold must be 1 (got {threshold})"))
    return problems


def toleration_problems(where, pod_spec):
    problems = []
    for i, toleration in enumerate(pod_spec.get("tolerations") or []):
        if not isinstance(toleration, dict):
            continue
        if toleration.get("operator") == "Exists" and toleration.get("value"):
            problems.append(rule(f"{where}.tolerations[{i}]: value must be empty when operator is Exists"))
        if "tolerationSeconds" in toleration and toleration.get("effect") != "NoExecute":
            problems.append(rule(f"{where}.tolerations[{i}]: tolerationSeconds needs effect NoExecute"))
    return problems


def pod_template_problems(kind, where, pod_spec, claims=()):
    """Every rule above for one pod template of an object of `kind`; `claims` names the volumes a
    StatefulSet's volumeClaimTemplates add to each pod (mounted by name like any volume)."""
    all_containers = [c for key in ("initContainers", "containers") for c in pod_spec.get(key) or []]
    problems = unique_names(where, all_containers, "container name")
    problems += unique_names(f"{where}.volumes", pod_spec.get("volumes") or [], "volume name")
    volumes = {v.get("name") for v in pod_spec.get("volumes") or [] if isinstance(v, dict)} | set(claims)
    for cname, container in containers(pod_spec):
        problems += container_problems(f"{where}.{cname}", container, volumes)
    problems += toleration_problems(where, pod_spec)
    allowed = RESTART_POLICIES.get(kind)
    policy = pod_spec.get("restartPolicy", "Always")
    if allowed and policy not in allowed:
        problems.append(rule(f"{where}.restartPolicy {policy}: a {kind} allows only {' or '.join(sorted(allowed))}"))
    return problems
