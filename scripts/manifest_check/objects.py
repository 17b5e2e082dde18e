"""Walking Kubernetes objects for raylaunch's manifest rules: pod templates, containers, argv, env."""
import os
import re

WORKLOAD_TEMPLATES = {
    "StatefulSet": ("spec", "template"),
    "Deployment": ("spec", "template"),
    "DaemonSet": ("spec", "template"),
    "ReplicaSet": ("spec", "template"),
    "Job": ("spec", "template"),
    "CronJob": ("spec", "jobTemplate", "spec", "template"),
    "Pod": (),
}
# Labels a controller adds to the pods it creates; a selector may use them although the pod
# template does not carry them (the head-only Service selects pod index 0 this way).
CONTROLLER_LABELS = {
    "StatefulSet": {"apps.kubernetes.io/pod-index", "statefulset.kubernetes.io/pod-name", "controller-revision-hash"},
    "Job": {"batch.kubernetes.io/job-completion-index", "batch.kubernetes.io/controller-uid",
            "batch.kubernetes.io/job-name", "controller-uid", "job-name"},
}
# The workload APIs whose pods carry raylaunch's identity themselves (plan/workload_identity.hpp):
# their pod templates get every workload rule, and rules/lws_*.py, start_order.py, jobset_*.py.
WORKLOAD_APIS = {"LeaderWorkerSet", "JobSet"}
# What LWS and JobSet label their pods with (sigs.k8s.io/lws v0.10.0 api/leaderworkerset/v1,
# sigs.k8s.io/jobset v0.12.0 api/jobset/v1alpha2), and the controllers they create pods through.
CONTROLLER_LABELS["LeaderWorkerSet"] = CONTROLLER_LABELS["StatefulSet"] | {
    "leaderworkerset.sigs.k8s.io/name", "leaderworkerset.sigs.k8s.io/group-index",
    "leaderworkerset.sigs.k8s.io/worker-index", "leaderworkerset.sigs.k8s.io/group-key"}
CONTROLLER_LABELS["JobSet"] = CONTROLLER_LABELS["Job"] | {
    "jobset.sigs.k8s.io/jobset-name", "jobset.sigs.k8s.io/replicatedjob-name", "jobset.sigs.k8s.io/job-index",
    "jobset.sigs.k8s.io/job-global-index", "jobset.sigs.k8s.io/job-key"}
SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"}


def dig(obj, *keys, default=None):
    for key in keys:
        if not isinstance(obj, dict) or key not in obj:
            return default
        obj = obj[key]
    return obj


def pod_templates(doc):
    """(where, pod template {metadata, spec}) for every pod template in the object."""
    kind = doc.get("kind")
    if kind == "Pod":
        yield "spec", {"metadata": doc.get("metadata") or {}, "spec": doc.get("spec") or {}}
    elif kind in WORKLOAD_TEMPLATES:
        template = dig(doc, *WORKLOAD_TEMPLATES[kind])
        if isinstance(template, dict) and isinstance(template.get("spec"), dict):
            yield ".".join(WORKLOAD_TEMPLATES[kind] + ("spec",)), template
    elif kind == "LeaderWorkerSet":
        for field in ("leaderTemplate", "workerTemplate"):
            template = dig(doc, "spec", "leaderWorkerTemplate", field)
            if isinstance(template, dict) and isinstance(template.get("spec"), dict):
                yield f"spec.leaderWorkerTemplate.{field}.spec", template
    elif kind == "JobSet":
        for index, rjob in enumerate(dig(doc, "spec", "replicatedJobs") or []):
            template = dig(rjob, "template", "spec", "template")
            if isinstance(template, dict) and isinstance(template.get("spec"), dict):
                yield f"spec.replicatedJobs[{dig(rjob, 'name') or index}].template.spec.template.spec", template
    elif kind == "MPIJob":
        for role, replica in (dig(doc, "spec", "mpiReplicaSpecs") or {}).items():
            template = dig(replica, "template")
            if isinstance(template, dict) and isinstance(template.get("spec"), dict):
                yield f"spec.mpiReplicaSpecs.{role}.template.spec", template


def pod_specs(doc):
    for where, template in pod_templates(doc):
        yield where, template["spec"]


def containers(pod_spec):
    for key in ("initContainers", "containers"):
        for index, container in enumerate(pod_spec.get(key) or []):
            if isinstance(container, dict):
                yield f"{key}[{container.get('name', index)}]", container


def argv(container):
    return [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]


def argv_lists(container):
    """(field, argv) for everything the container executes."""
    yield "command+args", argv(container)
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        yield f"{probe}.exec.command", dig(container, probe, "exec", "command") or []
    for hook in ("postStart", "preStop"):
        yield f"lifecycle.{hook}.exec.command", dig(container, "lifecycle", hook, "exec", "command") or []


def inline_shell(args):
    """The `<shell> -c <script>` part of argv (also -lc, -ec, after -o pipefail), or None."""
    args = [str(a) for a in args]
    for i, arg in enumerate(args):
        if os.path.basename(arg) not in SHELLS:
            continue
        j = i + 1
        while j < len(args) and args[j][:1] in "-+" and args[j] != "--":
            if args[j] in ("-o", "+o", "-O", "+O"):
                j += 2
                continue
            if re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", args[j]):
                return " ".join(args[i:j + 2])
            j += 1
    return None


def raylaunch_subcommand(command):
    """`run`, `redis-cleanup`, ... when the argv starts with raylaunch, else None."""
    if (isinstance(command, list) and len(command) >= 2 and isinstance(command[0], str)
            and os.path.basename(command[0]) == "raylaunch" and isinstance(command[1], str)):
        return command[1]
    return None


def env_entries(container):
    return [e for e in container.get("env") or [] if isinstance(e, dict) and isinstance(e.get("name"), str)]


def env_entry(container, name):
    for entry in env_entries(container):
        if entry["name"] == name:
            return entry
    return None


def env_literal(container, name):
    """(present, literal value or None when it comes from valueFrom)."""
    entry = env_entry(container, name)
    if entry is None:
        return False, None
    return True, None if "valueFrom" in entry else str(entry.get("value", ""))


def env_value(container, name, default):
    """The literal value, the default when the variable is absent, None when set from valueFrom."""
    present, value = env_literal(container, name)
    return value if present else default


def as_int(value):
    try:
        return int(str(value), 10)
    except ValueError:
        return None


def int_field(obj, key, default):
    """obj[key] when it is an integer, the default when absent, None for a wrong type."""
    value = obj.get(key, default) if isinstance(obj, dict) else default
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def container_port(container, port):
    """A probe's port (a number or a container port's name) as a number, or None."""
    if isinstance(port, int):
        return port
    for entry in container.get("ports") or []:
        if isinstance(entry, dict) and entry.get("name") == port:
            return entry.get("containerPort")
    return as_int(port)


def selects(selector, labels, wildcard):
    """Whether a label selector can match pods with these labels; controller-added keys may hold anything."""
    if not isinstance(selector, dict):
        return False
    match_labels = selector.get("matchLabels", {}) if "matchLabels" in selector or "matchExpressions" in selector \
        else selector  # a Service's selector is a plain map
    for key, value in (match_labels or {}).items():
        if key not in wildcard and labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or [] if match_labels is not selector else []:
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
        if key in wildcard:
            continue
        if (operator == "In" and labels.get(key) not in values) or (operator == "NotIn" and labels.get(key) in values) \
                or (operator == "Exists" and key not in labels) or (operator == "DoesNotExist" and key in labels):
            return False
    return True
