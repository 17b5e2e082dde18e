"""The API server's cross-field rules for whole objects, checked offline (rules `api-server` and
`pod-failure-policy`); the pod template's are in api_pod.py.

Implemented here (kubernetes pkg/apis/*/validation, v1.32, and the admission checks of the
operators whose CRDs the kit uses):
 8. label keys and values, annotation keys (apimachinery ValidateLabels: a value is at most 63
    characters of [A-Za-z0-9-_.], starting and ending alphanumeric)
 9. a workload's selector selects its own template's labels (StatefulSet, Deployment,
    DaemonSet, ReplicaSet: "selector does not match template labels")
10. Job: Indexed needs completions; backoffLimitPerIndex, maxFailedIndexes and successPolicy
    need completionMode Indexed; maxFailedIndexes needs backoffLimitPerIndex and is at most
    completions; successPolicy's succeededIndexes are below completions
11. Job podFailurePolicy (rule pod-failure-policy): needs restartPolicy Never and a
    podReplacementPolicy of Failed, if any; onExitCodes names a container of the pod, In never
    lists 0, values ascending and unique; FailIndex needs backoffLimitPerIndex
12. PodDisruptionBudget: minAvailable and maxUnavailable are mutually exclusive
13. Service: with more than one port each has a name, and names are unique
14. NetworkPolicy: endPort needs a numeric port and is not below it
15. Kueue ClusterQueue: every flavor lists exactly the coveredResources, by name and in order
    (the CRD's CEL rule and Kueue's webhook, "must match the name in coveredResources"); a
    borrowingLimit needs a cohort (CEL)
"""
import re

from ..objects import dig, pod_templates, selects

LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
QUALIFIED_NAME = re.compile(r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                            r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
SELECTOR_KINDS = {"StatefulSet", "Deployment", "DaemonSet", "ReplicaSet"}
INDEX_RANGE = re.compile(r"([0-9]+)(-([0-9]+))?")


def rule(message, name="api-server"):
    return f"rule {name}: {message}"


def metadata_problems(where, metadata):
    problems = []
    for key, value in (metadata.get("labels") or {}).items():
        if not QUALIFIED_NAME.fullmatch(str(key)) or len(str(key).split("/")[-1]) > 63:
            problems.append(rule(f"{where}.labels: key {key!r} is not a qualified name"))
        if not isinstance(value, str) or len(value) > 63 or not LABEL_VALUE.fullmatch(value):
            problems.append(rule(f"{where}.labels[{key}]: value {value!r} is not a label value (at most 63 "
                                 "characters of letters, digits, '-', '_' and '.', starting and ending alphanumeric)"))
    for key in metadata.get("annotations") or {}:
        if not QUALIFIED_NAME.fullmatch(str(key)) or len(str(key).split("/")[-1]) > 63:
            problems.append(rule(f"{where}.annotations: key {key!r} is not a qualified name"))
    return problems


def succeeded_indexes(text):
    """The highest index in "0,2-4" form, or None when the text is malformed."""
    highest = -1
    for part in str(text).split(","):
        match = INDEX_RANGE.fullmatch(part)
        if not match:
            return None
        highest = max(highest, int(match.group(3) or match.group(1)))
    return highest


def job_problems(spec, pod_spec):
    problems = []
    indexed = spec.get("completionMode") == "Indexed"
    completions = spec.get("completions")
    if indexed and completions is None:
        problems.append(rule("spec.completions is required with completionMode Indexed"))
    for field in ("backoffLimitPerIndex", "maxFailedIndexes", "successPolicy"):
        if field in spec and not indexed:
            problems.append(rule(f"spec.{field} requires completionMode Indexed"))
    if "maxFailedIndexes" in spec and "backoffLimitPerIndex" not in spec:
        problems.append(rule("spec.maxFailedIndexes requires spec.backoffLimitPerIndex"))
    if isinstance(completions, int) and isinstance(spec.get("maxFailedIndexes"), int) \
            and spec["maxFailedIndexes"] > completions:
        problems.append(rule(f"spec.maxFailedIndexes {spec['maxFailedIndexes']} must be at most completions {completions}"))
    for i, success in enumerate(dig(spec, "successPolicy", "rules") or []):
        text = success.get("succeededIndexes") if isinstance(success, dict) else None
        highest = succeeded_indexes(text) if text is not None else -1
        if highest is None or (isinstance(completions, int) and highest >= completions):
            problems.append(rule(f"spec.successPolicy.rules[{i}].succeededIndexes {text!r} must be indexes below "
                                 f"completions ({completions})"))
    return problems + pod_failure_policy_problems(spec, pod_spec)


def pod_failure_policy_problems(spec, pod_spec):
    policy = spec.get("podFailurePolicy")
    if not isinstance(policy, dict):
        return []
    problems = []
    if spec.get("podReplacementPolicy", "Failed") != "Failed":
        # JobSpec.podReplacementPolicy: "When using podFailurePolicy, Failed is the only allowed value."
        problems.append(rule(f"spec.podReplacementPolicy {spec['podReplacementPolicy']} must be Failed with "
                             "spec.podFailurePolicy: the policy reads the exit codes of pods that have finished "
                             "terminating, so their replacements wait for that", "pod-failure-policy"))
    if pod_spec.get("restartPolicy") != "Never":
        problems.append(rule(f"spec.podFailurePolicy requires the pod template's restartPolicy Never (got "
                             f"{pod_spec.get('restartPolicy', 'Always')}): a restarted container hides the exit codes "
                             "the policy reads", "pod-failure-policy"))
    names = {c.get("name") for key in ("initContainers", "containers") for c in pod_spec.get(key) or []
             if isinstance(c, dict)}
    for i, entry in enumerate(policy.get("rules") or []):
        here = f"spec.podFailurePolicy.rules[{i}]"
        codes = entry.get("onExitCodes") if isinstance(entry, dict) else None
        if isinstance(entry, dict) and entry.get("action") == "FailIndex" and "backoffLimitPerIndex" not in spec:
            problems.append(rule(f"{here}: action FailIndex requires spec.backoffLimitPerIndex", "pod-failure-policy"))
        if not isinstance(codes, dict):
            continue
        name = codes.get("containerName")
        if name is not None and name not in names:
            problems.append(rule(f'{here}.onExitCodes.containerName "{name}" is not a container of the pod '
                                 f'({", ".join(sorted(str(n) for n in names))}): the API server rejects the Job',
                                 "pod-failure-policy"))
        values = codes.get("values") or []
        if codes.get("operator") == "In" and 0 in values:
            problems.append(rule(f"{here}.onExitCodes.values must not contain 0 with operator In", "pod-failure-policy"))
        if values != sorted(set(values), key=lambda v: (not isinstance(v, int), v)):
            problems.append(rule(f"{here}.onExitCodes.values must be ascending and unique", "pod-failure-policy"))
    return problems


def service_problems(spec):
    ports = [p for p in spec.get("ports") or [] if isinstance(p, dict)]
    problems = []
    if len(ports) > 1:
        for i, port in enumerate(ports):
            if not port.get("name"):
                problems.append(rule(f"spec.ports[{i}].name is required when a Service has more than one port"))
        names = [p.get("name") for p in ports if p.get("name")]
        for name in sorted({n for n in names if names.count(n) > 1}):
            problems.append(rule(f'spec.ports: name "{name}" appears twice (Duplicate value)'))
    return problems


def network_policy_problems(spec):
    problems = []
    for direction in ("ingress", "egress"):
        for i, entry in enumerate(spec.get(direction) or []):
            for j, port in enumerate((entry or {}).get("ports") or [] if isinstance(entry, dict) else []):
                if not isinstance(port, dict) or "endPort" not in port:
                    continue
                if not isinstance(port.get("port"), int) or port["endPort"] < port["port"]:
                    problems.append(rule(f"spec.{direction}[{i}].ports[{j}].endPort needs a numeric port no greater "
                                         "than it"))
    return problems


def cluster_queue_problems(spec):
    problems = []
    for i, group in enumerate(spec.get("resourceGroups") or []):
        covered = list((group or {}).get("coveredResources") or [])
        for j, flavor in enumerate((group or {}).get("flavors") or []):
            names = [r.get("name") for r in (flavor or {}).get("resources") or [] if isinstance(r, dict)]
            if names != covered:
                problems.append(rule(f"spec.resourceGroups[{i}].flavors[{j}] ({flavor.get('name')}) lists {names}; "
                                     f"every flavor must list exactly the coveredResources {covered}, in that order"))
            if "cohort" not in spec and "cohortName" not in spec and any(
                    "borrowingLimit" in r for r in flavor.get("resources") or [] if isinstance(r, dict)):
                problems.append(rule(f"spec.resourceGroups[{i}].flavors[{j}]: borrowingLimit must be unset when the "
                                     "ClusterQueue has no cohort"))
    return problems


def object_problems(doc):
    """The rules above for one object."""
    kind, spec = doc.get("kind"), doc.get("spec") or {}
    problems = metadata_problems("metadata", doc.get("metadata") or {})
    for where, template in pod_templates(doc):
        if kind != "Pod":
            problems += metadata_problems(where.removesuffix(".spec") + ".metadata", template.get("metadata") or {})
        if kind in SELECTOR_KINDS and isinstance(spec.get("selector"), dict):
            labels = dig(template, "metadata", "labels") or {}
            if not selects(spec["selector"], labels, set()):
                problems.append(rule("spec.selector does not match the template's labels: the API server rejects the "
                                     f"{kind}"))
        if kind == "Job":
            problems += job_problems(spec, template["spec"])
    if kind == "PodDisruptionBudget" and "minAvailable" in spec and "maxUnavailable" in spec:
        problems.append(rule("spec: minAvailable and maxUnavailable cannot both be set"))
    if kind == "Service":
        problems += service_problems(spec)
    if kind == "NetworkPolicy":
        problems += network_policy_problems(spec)
    if kind == "ClusterQueue":
        problems += cluster_queue_problems(spec)
    return problems

