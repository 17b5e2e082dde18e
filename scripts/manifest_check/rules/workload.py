"""Rules for workloads whose pods run raylaunch: the command, the cluster's shape (nodes, Service,
namespace, Indexed Job), the after-success mode, GCS fault tolerance and Kueue's labels.

Facts: ../shared/reference/anchors.md (A3 probes, A4 GCS fault tolerance, A5 Services, C1 the
StatefulSet and Job controllers) and fabric-and-node-checks.md section 7 (the seed's flaws).
"""
import json

from .. import durations
from . import lifecycle
from . import node_labels
from ..objects import (as_int, containers, dig, env_entry, env_literal, env_value,
                             raylaunch_subcommand)

# raylaunch subcommands a Job may run instead of `run` (one-shot tools, no Ray cluster).
ONE_SHOT = {"redis-cleanup"}
# A Job's pods are not restarted in place; every other workload restarts a container that exits.
RUN_TO_COMPLETION = {"Job", "CronJob"}
MIN_JOB_JOIN_S = 1800
KUEUE_QUEUE = "kueue.x-k8s.io/queue-name"
KUEUE_TOPOLOGY = ("kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology",
                  "kueue.x-k8s.io/podset-unconstrained-topology")


def workload_rules(doc, where, template):
    """Every rule for one pod template of a StatefulSet, Job, ... (not MPIJob: exempt)."""
    problems = []
    kind, spec, pod_spec = doc["kind"], doc.get("spec") or {}, template["spec"]
    runs = False
    for cname, container in containers(pod_spec):
        command = container.get("command")
        sub = raylaunch_subcommand(command)
        here = f"{where}.{cname}"
        if sub in ONE_SHOT and kind in RUN_TO_COMPLETION:
            problems += gcs_ft_rules(here, container, one_shot=True)
            problems += lifecycle.security_rules(here, pod_spec, container)
            continue
        if sub != "run":
            problems.append(f"rule raylaunch-command: {here}.command must start with [raylaunch, run, --] (or, in a "
                            f"Job, [raylaunch, {', '.join(sorted(ONE_SHOT))}]), got {json.dumps(command)}")
            continue
        runs = True
        if "--" not in command or command.index("--") == len(command) - 1:
            problems.append(f"rule raylaunch-command: {here}.command needs `--` and a launch command")
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            probe_argv = dig(container, probe, "exec", "command")
            if probe_argv is not None and raylaunch_subcommand(probe_argv) != "probe":
                problems.append(f"rule raylaunch-probe: {here}.{probe} must exec [raylaunch, probe, ...], "
                                f"got {json.dumps(probe_argv)}")
        problems += cluster_rules(kind, spec, where, pod_spec, cname, container)
        problems += node_labels.node_label_rules(here, pod_spec, container)
        problems += on_success_rules(kind, pod_spec, here, container)
        problems += gcs_ft_rules(here, container, one_shot=False)
        problems += lifecycle.container_rules(here, pod_spec, container)
    if runs and kind == "StatefulSet":
        if spec.get("podManagementPolicy") != "Parallel":
            problems.append(f"rule parallel: spec.podManagementPolicy must be Parallel (got "
                            f"{spec.get('podManagementPolicy', 'OrderedReady (default)')}): with OrderedReady "
                            "pod 1 waits for pod 0 to be Ready, which waits for pod 1")
        strategy = dig(spec, "updateStrategy", "type", default="RollingUpdate (default)")
        if strategy != "OnDelete":
            problems.append(f"rule update-strategy: spec.updateStrategy.type must be OnDelete (got {strategy}): a "
                            "rolling update restarts one pod of a running Ray cluster at a time, which kills the run")
    if runs:
        problems += kueue_rules(doc, where, template)
    return problems


def cluster_rules(kind, spec, where, pod_spec, cname, container):
    problems = []
    here = f"{where}.{cname}"
    present, nodes_text = env_literal(container, "RAYLAUNCH_NODES")
    nodes = as_int(nodes_text) if nodes_text is not None else None
    if nodes is None:
        problems.append(f"rule nodes: {here} needs env RAYLAUNCH_NODES as a literal number"
                        + ("" if present else " (it is missing)"))
    elif kind == "StatefulSet" and nodes != spec.get("replicas", 1):
        problems.append(f'rule nodes: {here} RAYLAUNCH_NODES "{nodes_text}" != spec.replicas {spec.get("replicas", 1)}')
    elif kind == "Job":
        for field in ("parallelism", "completions"):
            if nodes != spec.get(field, 1):
                problems.append(f'rule nodes: {here} RAYLAUNCH_NODES "{nodes_text}" != spec.{field} {spec.get(field, 1)}')
    multi_node = nodes is not None and nodes > 1

    _, service = env_literal(container, "RAYLAUNCH_SERVICE")
    owner = {"StatefulSet": ("spec.serviceName", spec.get("serviceName")),
             "Job": (f"{where}.subdomain", pod_spec.get("subdomain"))}.get(kind)
    if not service:
        problems.append(f"rule service-name: {here} needs env RAYLAUNCH_SERVICE (the headless Service's name)")
    elif owner and (owner[1] or multi_node) and service != owner[1]:
        problems.append(f'rule service-name: {here} RAYLAUNCH_SERVICE "{service}" != {owner[0]} {json.dumps(owner[1])}')

    if dig(env_entry(container, "POD_NAMESPACE"), "valueFrom", "fieldRef", "fieldPath") != "metadata.namespace":
        problems.append(f"rule namespace: {here} needs env POD_NAMESPACE from fieldRef metadata.namespace")

    problems += lifecycle.probe_timing_rules(here, container, multi_node)

    if container.get("terminationMessagePolicy") != "FallbackToLogsOnError":
        problems.append(f"rule termination-message: {here}.terminationMessagePolicy must be FallbackToLogsOnError")

    for variable, resource in (("RAYLAUNCH_GPUS", "nvidia.com/gpu"), ("RAYLAUNCH_EFA", "vpc.amazonaws.com/efa")):
        present, value = env_literal(container, variable)
        limit = dig(container, "resources", "limits", resource, default=0)
        if present and as_int(value) != as_int(limit):
            problems.append(f'rule devices: {here} {variable} "{value}" != resources.limits {resource} {limit}')
    problems += fabric_check_rules(here, container)
    for size in ("hugepages-2Mi", "hugepages-1Gi"):
        request = dig(container, "resources", "requests", size)
        limit = dig(container, "resources", "limits", size)
        if request is not None and request != limit:
            problems.append(f"rule devices: {here} {size} request {request} != limit {limit} (huge pages cannot "
                            "be overcommitted; the API server rejects the pod)")

    if kind == "Job" and multi_node:
        rules = dig(spec, "successPolicy", "rules") or []
        if spec.get("completionMode") != "Indexed" or not any(
                isinstance(r, dict) and r.get("succeededIndexes") == "0" for r in rules):
            problems.append("rule indexed-job: a multi-node Job needs completionMode: Indexed and successPolicy "
                            'rules [{succeededIndexes: "0"}], so it completes when the head (index 0) succeeds')
        problems += first_failure_rules(spec)
        join_text = env_value(container, "RAYLAUNCH_JOIN_TIMEOUT", "300s")
        join = durations.parse_seconds(join_text) if join_text is not None else None
        if join is not None and join < MIN_JOB_JOIN_S:
            problems.append(f"rule indexed-job: {here} RAYLAUNCH_JOIN_TIMEOUT {join_text} < {MIN_JOB_JOIN_S}s: a cold "
                            "start (node launch plus a 15-20 GB image pull) takes longer, and a Job does not retry "
                            "a pod that timed out at the barrier")
    return problems


def first_failure_rules(spec):
    """One failed pod ends a multi-node Job at once: a Ray cluster that lost a node cannot go on,
    and a Job left active holds its quota and nodes until activeDeadlineSeconds. With per-index
    limits that takes maxFailedIndexes: 0 (the Job fails when the first index fails; batch/v1
    JobSpec), without them backoffLimit: 0."""
    if "backoffLimitPerIndex" in spec:
        if spec.get("backoffLimitPerIndex") != 0 or spec.get("maxFailedIndexes") != 0:
            return [f"rule indexed-job: backoffLimitPerIndex {spec.get('backoffLimitPerIndex')} with maxFailedIndexes "
                    f"{spec.get('maxFailedIndexes', 'unset')}: a failed pod leaves the Job, its quota and its nodes "
                    "active until the other indexes end or activeDeadlineSeconds; set backoffLimitPerIndex: 0 and "
                    "maxFailedIndexes: 0 so the first failed index fails the Job"]
        return []
    if spec.get("backoffLimit", 6) != 0:
        return [f"rule indexed-job: backoffLimit {spec.get('backoffLimit', '6 (default)')}: a retried pod rejoins no "
                "cluster (the others wait at a barrier that has ended); set backoffLimitPerIndex: 0 and "
                "maxFailedIndexes: 0, or backoffLimit: 0"]
    return []


def on_success_rules(kind, pod_spec, here, container):
    value = env_value(container, "RAYLAUNCH_ON_SUCCESS", "exit")
    if value is None:
        return []  # from a ConfigMap: cannot tell
    if value not in ("exit", "stay"):
        return [f'rule on-success: {here} RAYLAUNCH_ON_SUCCESS "{value}" is not exit or stay']
    restarts = kind not in RUN_TO_COMPLETION and pod_spec.get("restartPolicy", "Always") == "Always"
    if restarts and value != "stay":
        return [f"rule on-success: {here} needs RAYLAUNCH_ON_SUCCESS=stay: a {kind} restarts a container that "
                "exits, so a head that exits 0 would run the training again"]
    if not restarts and value == "stay":
        return [f"rule on-success: {here} RAYLAUNCH_ON_SUCCESS=stay in a {kind}: the head would never exit, "
                "so the Job would never complete; use exit"]
    return []


def gcs_ft_rules(here, container, one_shot):
    """GCS fault tolerance (external Redis): what every pod that talks to Redis needs."""
    has_address = env_entry(container, "RAY_REDIS_ADDRESS") is not None
    if not has_address:
        if one_shot:
            return [f"rule gcs-ft: {here} runs raylaunch redis-cleanup without env RAY_REDIS_ADDRESS"]
        return []
    problems = []
    namespace_flag = any(str(a).startswith("--storage-namespace") for a in container.get("args") or []) or any(
        str(a).startswith("--storage-namespace") for a in container.get("command") or [])
    if env_entry(container, "RAY_external_storage_namespace") is None and not namespace_flag:
        problems.append(f"rule gcs-ft: {here} sets RAY_REDIS_ADDRESS without RAY_external_storage_namespace: every "
                        "cluster using that Redis would share Ray's default namespace and overwrite each other")
    password = env_entry(container, "REDIS_PASSWORD")
    if password is None:
        problems.append(f"rule gcs-ft: {here} sets RAY_REDIS_ADDRESS without REDIS_PASSWORD: an unauthenticated "
                        "Redis lets any pod rewrite the cluster's GCS tables (use valueFrom.secretKeyRef)")
    elif dig(password, "valueFrom", "secretKeyRef") is None and "value" not in password \
            and dig(password, "valueFrom", "configMapKeyRef") is None:
        problems.append(f"rule gcs-ft: {here} REDIS_PASSWORD must come from valueFrom.secretKeyRef")
    return problems


def kueue_rules(doc, where, template):
    problems = []
    labels = dig(doc, "metadata", "labels") or {}
    template_labels = dig(template, "metadata", "labels") or {}
    annotations = dig(template, "metadata", "annotations") or {}
    if doc["kind"] != "Pod" and KUEUE_QUEUE in template_labels and KUEUE_QUEUE not in labels:
        problems.append(f"rule kueue: {where} has the {KUEUE_QUEUE} label on its pod template only; Kueue reads it "
                        f"from the {doc['kind']}'s own metadata.labels")
    topology = [key for key in KUEUE_TOPOLOGY if key in annotations]
    if topology and KUEUE_QUEUE not in labels and KUEUE_QUEUE not in template_labels:
        problems.append(f"rule kueue: {where} asks for {topology[0]} without the {KUEUE_QUEUE} label: "
                        "Kueue never sees the workload, so the annotation does nothing")
    if len(topology) > 1:
        problems.append(f"rule kueue: {where} sets {' and '.join(topology)}; Kueue takes one topology mode")
    return problems


FABRIC_CHECK_VALUES = ("off", "on")


def fabric_check_rules(here, container):
    """The gang fabric check's settings (docs/run.md#the-gang-fabric-check---fabric-check):
    RAYLAUNCH_FABRIC_CHECK is off or on; on, it tests EFA unless RAYLAUNCH_FABRIC_PROVIDER names
    another provider, so the pod must request vpc.amazonaws.com/efa (without it every link fails
    and, under strict checks, the head exits 78); RAYLAUNCH_FABRIC_CHECK_TIMEOUT is a duration."""
    problems = []
    present, check = env_literal(container, "RAYLAUNCH_FABRIC_CHECK")
    if present and check not in FABRIC_CHECK_VALUES:
        problems.append(f'rule fabric-check: {here} RAYLAUNCH_FABRIC_CHECK "{check}" is not off or on')
    timeout = env_value(container, "RAYLAUNCH_FABRIC_CHECK_TIMEOUT", "30s")
    if timeout is not None and durations.parse_seconds(timeout) is None:
        problems.append(f'rule fabric-check: {here} RAYLAUNCH_FABRIC_CHECK_TIMEOUT "{timeout}" is not '
                        f"{durations.EXPECTED}")
    provider = env_value(container, "RAYLAUNCH_FABRIC_PROVIDER", "efa")
    efa = as_int(dig(container, "resources", "limits", "vpc.amazonaws.com/efa", default=0)) or 0
    if check == "on" and provider == "efa" and efa <= 0:
        problems.append(f"rule fabric-check: {here} RAYLAUNCH_FABRIC_CHECK is on over EFA but the container has no "
                        "vpc.amazonaws.com/efa limit: every link would fail (request EFA, or set "
                        "RAYLAUNCH_FABRIC_PROVIDER to a provider the node has)")
    return problems
