"""raylaunch's own rules for its Kubernetes manifests, used by validate_manifests.py.

Each rule names what it enforces in RULES; the functions return (rule, message) problems.
Facts behind the rules: ../shared/reference/fabric-and-node-checks.md (section 3, legacy fabric
variables; section 7, the seed StatefulSet's flaws) and anchors.md (probes, A3; Services, A5).
"""
import json
import os
import re

RULES = {
    "raylaunch-command": "every container of a workload runs `raylaunch run -- <launch command>`",
    "raylaunch-probe": "exec probes run `raylaunch probe ...`",
    "no-shell": "no inline shell (`bash -c`, `sh -c`, ...) in any command, args, probe or hook",
    "headless-service": "a headless Service publishes not-ready addresses; the Service a workload names exists and is headless",
    "parallel": "StatefulSets use podManagementPolicy: Parallel",
    "nodes": "RAYLAUNCH_NODES equals the StatefulSet's replicas or the Job's parallelism and completions",
    "service-name": "RAYLAUNCH_SERVICE names the StatefulSet's serviceName or the Job's subdomain",
    "namespace": "POD_NAMESPACE comes from the Downward API (metadata.namespace)",
    "probe-timing": "probe timeoutSeconds >= 2; multi-node pods have a startupProbe covering RAYLAUNCH_JOIN_TIMEOUT + 120 s",
    "termination-message": "raylaunch containers use terminationMessagePolicy: FallbackToLogsOnError",
    "indexed-job": "a multi-node Job is Indexed with a successPolicy on index 0",
    "devices": "RAYLAUNCH_GPUS / RAYLAUNCH_EFA equal the container's nvidia.com/gpu / vpc.amazonaws.com/efa limits",
    "legacy-fabric-env": "no obsolete or harmful EFA/NCCL variables (env or mpirun -x)",
    "mpirun-np": "an explicit mpirun -np equals Worker replicas x slotsPerWorker",
}
# Kinds whose pods are not raylaunch pods. They still get no-shell and legacy-fabric-env.
RAYLAUNCH_EXEMPT = {
    "MPIJob": "NCCL-tests fabric check: the MPI Operator needs mpirun in the launcher and sshd in the workers",
}
WORKLOAD_TEMPLATES = {
    "StatefulSet": ("spec", "template", "spec"),
    "Deployment": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "Pod": ("spec",),
}
SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"}
# name -> (is the value harmful?, why); see fabric-and-node-checks.md section 3.
LEGACY_ENV = {
    "FI_EFA_USE_DEVICE_RDMA": (lambda v: v == "1", "not needed with libfabric >= 1.18; aborts on EFA devices without RDMA"),
    "RDMAV_FORK_SAFE": (lambda v: True, "can break things on newer kernels"),
    "FI_EFA_ENABLE_SHM_TRANSFER": (lambda v: True, "not needed; libfabric handles SHM"),
    "NCCL_PROTO": (lambda v: True, "disables LL/LL128 and the aws-ofi-nccl tuner"),
    "NCCL_ALGO": (lambda v: True, "overrides the aws-ofi-nccl tuner"),
    "NCCL_BUFFSIZE": (lambda v: True, "aws-ofi-nccl >= 1.16 sets it per instance type"),
    "NCCL_P2P_NET_CHUNKSIZE": (lambda v: True, "aws-ofi-nccl >= 1.16 sets it per instance type"),
    "NCCL_TUNER_PLUGIN": (lambda v: "/" in v, "a path goes stale; leave it unset (or use the name `ofi`)"),
    "NCCL_NET_GDR_LEVEL": (lambda v: v == "LOC", "LOC disables GPUDirect RDMA"),
    "OFI_NCCL_DISABLE_GDR_REQUIRED_CHECK": (lambda v: True, "hides a broken GPUDirect path"),
}


# --- raylaunch rules ----------------------------------------------------------------------

def dig(obj, *keys, default=None):
    for key in keys:
        if not isinstance(obj, dict) or key not in obj:
            return default
        obj = obj[key]
    return obj


def pod_specs(doc):
    """(where, pod spec) for every pod template in the object."""
    kind = doc.get("kind")
    if kind in WORKLOAD_TEMPLATES:
        spec = dig(doc, *WORKLOAD_TEMPLATES[kind])
        if isinstance(spec, dict):
            yield ".".join(WORKLOAD_TEMPLATES[kind]), spec
    elif kind == "MPIJob":
        for role, replica in (dig(doc, "spec", "mpiReplicaSpecs") or {}).items():
            spec = dig(replica, "template", "spec")
            if isinstance(spec, dict):
                yield f"spec.mpiReplicaSpecs.{role}.template.spec", spec


def containers(pod_spec):
    for key in ("initContainers", "containers"):
        for index, container in enumerate(pod_spec.get(key) or []):
            if isinstance(container, dict):
                yield f"{key}[{container.get('name', index)}]", container


def argv_lists(container):
    """(field, argv) for everything the container executes."""
    command = container.get("command") or []
    args = container.get("args") or []
    yield "command+args", list(command) + list(args)
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        yield f"{probe}.exec.command", dig(container, probe, "exec", "command") or []
    for hook in ("postStart", "preStop"):
        yield f"lifecycle.{hook}.exec.command", dig(container, "lifecycle", hook, "exec", "command") or []


def inline_shell(argv):
    """The `<shell> -c <script>` part of argv (also -lc, -ec, after -o pipefail), or None."""
    argv = [str(a) for a in argv]
    for i, arg in enumerate(argv):
        if os.path.basename(arg) not in SHELLS:
            continue
        j = i + 1
        while j < len(argv) and argv[j][:1] in "-+" and argv[j] != "--":
            if argv[j] in ("-o", "+o", "-O", "+O"):
                j += 2
                continue
            if re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", argv[j]):
                return " ".join(argv[i:j + 2])
            j += 1
    return None


def is_raylaunch(argv, subcommand):
    return (isinstance(argv, list) and len(argv) >= 2 and isinstance(argv[0], str)
            and os.path.basename(argv[0]) == "raylaunch" and argv[1] == subcommand)


def env_literal(container, name):
    """(present, literal value or None when it comes from valueFrom)."""
    for entry in container.get("env") or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            return True, entry.get("value") if "valueFrom" not in entry else None
    return False, None


def as_int(value):
    try:
        return int(str(value), 10)
    except ValueError:
        return None


def int_field(obj, key, default):
    """obj[key] when it is an integer, the default when absent, None for a wrong type."""
    value = obj.get(key, default) if isinstance(obj, dict) else default
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def duration_seconds(text):
    match = re.fullmatch(r"(\d+)(s|m|h)?", str(text).strip())
    if not match:
        return None
    return int(match.group(1)) * {"s": 1, None: 1, "m": 60, "h": 3600}[match.group(2)]


def shell_and_env_rules(doc):
    problems = []
    for where, pod_spec in pod_specs(doc):
        for cname, container in containers(pod_spec):
            for field, argv in argv_lists(container):
                script = inline_shell(argv)
                if script:
                    problems.append(f"rule no-shell: {where}.{cname}.{field} runs an inline shell script "
                                    f"({json.dumps(script)}); give the program's argv directly")
            variables = [(e.get("name"), str(e.get("value", ""))) for e in container.get("env") or []
                         if isinstance(e, dict)]
            argv = [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]
            variables += [tuple(argv[i + 1].partition("=")[::2]) for i, a in enumerate(argv[:-1]) if a == "-x"]
            for name, value in variables:
                if name in LEGACY_ENV and LEGACY_ENV[name][0](value):
                    problems.append(f"rule legacy-fabric-env: {where}.{cname} sets {name}={value}: {LEGACY_ENV[name][1]}")
    return problems


def workload_rules(doc, where, pod_spec):
    """raylaunch rules for one pod template of a StatefulSet, Job, ..."""
    problems = []
    kind, spec = doc["kind"], doc.get("spec") or {}
    for cname, container in containers(pod_spec):
        command = container.get("command")
        if not is_raylaunch(command, "run"):
            problems.append(f"rule raylaunch-command: {where}.{cname}.command must start with "
                            f"[raylaunch, run, --], got {json.dumps(command)}")
            continue
        if "--" not in command or command.index("--") == len(command) - 1:
            problems.append(f"rule raylaunch-command: {where}.{cname}.command needs `--` and a launch command")
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            argv = dig(container, probe, "exec", "command")
            if argv is not None and not is_raylaunch(argv, "probe"):
                problems.append(f"rule raylaunch-probe: {where}.{cname}.{probe} must exec [raylaunch, probe, ...], "
                                f"got {json.dumps(argv)}")
        problems += raylaunch_container_rules(kind, spec, where, pod_spec, cname, container)
    if kind == "StatefulSet" and spec.get("podManagementPolicy") != "Parallel":
        problems.append(f"rule parallel: spec.podManagementPolicy must be Parallel (got "
                        f"{spec.get('podManagementPolicy', 'OrderedReady (default)')}): with OrderedReady "
                        "pod 1 waits for pod 0 to be Ready, which waits for pod 1")
    return problems


def raylaunch_container_rules(kind, spec, where, pod_spec, cname, container):
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

    namespace = [e for e in container.get("env") or [] if isinstance(e, dict) and e.get("name") == "POD_NAMESPACE"]
    if not namespace or dig(namespace[0], "valueFrom", "fieldRef", "fieldPath") != "metadata.namespace":
        problems.append(f"rule namespace: {here} needs env POD_NAMESPACE from fieldRef metadata.namespace")

    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        timeout = int_field(container.get(probe), "timeoutSeconds", 1)
        if probe in container and timeout is not None and timeout < 2:
            problems.append(f"rule probe-timing: {here}.{probe}.timeoutSeconds must be >= 2 "
                            "(the probe's own deadline is 1 s, plus exec start)")
    if multi_node:
        _, join_text = env_literal(container, "RAYLAUNCH_JOIN_TIMEOUT")
        join = duration_seconds(join_text or "300s")
        startup = container.get("startupProbe")
        if join is None:
            problems.append(f'rule probe-timing: {here} RAYLAUNCH_JOIN_TIMEOUT "{join_text}" is not 300, 300s, 5m or 1h')
        elif not startup:
            problems.append(f"rule probe-timing: {here} needs a startupProbe covering RAYLAUNCH_JOIN_TIMEOUT "
                            f"({join} s) + 120 s, or liveness kills pods waiting at the barrier")
        else:
            period, threshold = int_field(startup, "periodSeconds", 10), int_field(startup, "failureThreshold", 3)
            window = period * threshold if period is not None and threshold is not None else None
            if window is not None and window < join + 120:
                problems.append(f"rule probe-timing: {here}.startupProbe allows {window} s "
                                f"(periodSeconds x failureThreshold) < RAYLAUNCH_JOIN_TIMEOUT {join} s + 120 s")

    if container.get("terminationMessagePolicy") != "FallbackToLogsOnError":
        problems.append(f"rule termination-message: {here}.terminationMessagePolicy must be FallbackToLogsOnError")

    for variable, resource in (("RAYLAUNCH_GPUS", "nvidia.com/gpu"), ("RAYLAUNCH_EFA", "vpc.amazonaws.com/efa")):
        present, value = env_literal(container, variable)
        limit = dig(container, "resources", "limits", resource, default=0)
        if present and as_int(value) != as_int(limit):
            problems.append(f'rule devices: {here} {variable} "{value}" != resources.limits {resource} {limit}')

    if kind == "Job" and multi_node:
        rules = dig(spec, "successPolicy", "rules") or []
        if spec.get("completionMode") != "Indexed" or not any(
                isinstance(r, dict) and r.get("succeededIndexes") == "0" for r in rules):
            problems.append("rule indexed-job: a multi-node Job needs completionMode: Indexed and successPolicy "
                            'rules [{succeededIndexes: "0"}], so it completes when the head (index 0) succeeds')
    return problems


def object_rules(doc):
    """Rules that need only this object."""
    if not isinstance(doc, dict):
        return []
    kind = doc.get("kind")
    problems = shell_and_env_rules(doc)
    if kind == "Service" and dig(doc, "spec", "clusterIP") == "None" \
            and dig(doc, "spec", "publishNotReadyAddresses") is not True:
        problems.append("rule headless-service: spec.publishNotReadyAddresses must be true, or workers cannot "
                        "resolve the head before it is Ready")
    if kind in WORKLOAD_TEMPLATES:
        for where, pod_spec in pod_specs(doc):
            problems += workload_rules(doc, where, pod_spec)
    if kind == "MPIJob":
        problems += mpirun_rules(doc)
    return problems


def mpirun_rules(doc):
    spec = doc.get("spec") or {}
    workers = dig(spec, "mpiReplicaSpecs", "Worker", "replicas", default=1)
    slots = spec.get("slotsPerWorker", 1)
    problems = []
    if not isinstance(workers, int) or not isinstance(slots, int):
        return problems  # the schema check reports the wrong type
    for _, pod_spec in pod_specs(doc):
        for cname, container in containers(pod_spec):
            argv = [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]
            for i, arg in enumerate(argv[:-1]):
                if arg in ("-np", "--np") and as_int(argv[i + 1]) != workers * slots:
                    problems.append(f"rule mpirun-np: {cname} runs mpirun {arg} {argv[i + 1]}, but Worker replicas "
                                    f"x slotsPerWorker = {workers * slots} (or drop -np: mpirun uses the hostfile)")
    return problems


def unit_rules(docs):
    """Rules across the objects of one build or file: named Services exist and are headless."""
    services = {dig(d, "metadata", "name"): d for d in docs if isinstance(d, dict) and d.get("kind") == "Service"}
    problems = []
    for index, doc in enumerate(docs):
        if not isinstance(doc, dict):
            continue
        names = []
        if doc.get("kind") == "StatefulSet":
            names.append(("spec.serviceName", dig(doc, "spec", "serviceName")))
        for where, pod_spec in pod_specs(doc):
            if doc.get("kind") != "MPIJob" and pod_spec.get("subdomain"):
                names.append((f"{where}.subdomain", pod_spec["subdomain"]))
        for field, name in names:
            service = services.get(name)
            if service is None:
                problems.append((index, f"rule headless-service: {field} names Service {json.dumps(name)}, "
                                        "which is not among the objects checked with it (same build or file)"))
            elif dig(service, "spec", "clusterIP") != "None":
                problems.append((index, f"rule headless-service: {field} names Service {json.dumps(name)}, "
                                        "which must be headless (clusterIP: None)"))
    return problems
