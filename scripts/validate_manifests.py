#!/usr/bin/python3
"""Strict offline validation of Kubernetes manifests, plus raylaunch's own rules.

    /usr/bin/python3 scripts/validate_manifests.py [--no-rules] [--k8s-defs F] [--crd F]... PATH...

PATH is a YAML file (several documents allowed), `-` for stdin, a kustomize directory, or a
directory searched for kustomize directories and loose YAML files. A kustomize directory is
checked twice: its `kubectl kustomize` output, and every plain file its `resources:` list
names (following bases and components), since a raw file must be complete on its own
(`labels` with `includeSelectors` can hide a missing selector in the build output).

Schemas: the Kubernetes 1.32 definitions and the MPIJob CRD in tests/manifests/schemas/
(see the README there), made strict at load time: `additionalProperties: false` on every
object schema that lists `properties`, as the API server's fieldValidation=Strict does. A
kind with no schema is a failure. CRD metadata is checked against the real ObjectMeta.

Rules (skip with --no-rules; list with --list-rules) are in RULES below; each failure names
its rule.

Exit status: 0 all valid, 1 something invalid, 2 setup problem (missing package, kubectl or
schema file, nothing to check). Run it with Debian's /usr/bin/python3 (python3-yaml,
python3-jsonschema); scripts/check-manifests installs those and runs yamllint first.
"""
import argparse
import json
import os
import re
import subprocess
import sys

EXIT_VALID, EXIT_INVALID, EXIT_SETUP = 0, 1, 2
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_DIR = os.path.join(REPO, "tests", "manifests", "schemas")
DEFAULT_DEFS = os.path.join(SCHEMA_DIR, "k8s-v1.32.0-definitions.json")
DEFAULT_CRDS = [os.path.join(SCHEMA_DIR, "kubeflow.org_mpijobs.v0.8.0.yaml")]
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
OBJECT_META = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

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

try:
    import yaml
    import jsonschema
except ImportError as missing:  # reported by main() as a setup problem
    yaml = jsonschema = None
    IMPORT_ERROR = missing
else:
    IMPORT_ERROR = None


class SetupError(Exception):
    """A problem with the environment, not with the manifests (exit 2)."""


# --- YAML ---------------------------------------------------------------------------------

def strict_loader():
    """A SafeLoader that rejects duplicate keys and keeps timestamps as strings."""
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class StrictLoader(base):  # pylint: disable=too-many-ancestors
        pass

    StrictLoader.yaml_implicit_resolvers = {
        first: [r for r in resolvers if r[0] != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }

    def construct_map(loader, node):
        loader.flatten_mapping(node)
        seen = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:  # unhashable key: the schema check reports it
                continue
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    f"found duplicate key {key!r}", key_node.start_mark)
        return loader.construct_mapping(node, deep=True)

    StrictLoader.add_constructor("tag:yaml.org,2002:map", construct_map)
    return StrictLoader


def load_documents(text, loader):
    """Returns (documents, error); empty documents are dropped, `key: null` removed."""
    try:
        docs = [d for d in yaml.load_all(text, Loader=loader) if d is not None]
    except yaml.YAMLError as err:
        return [], "YAML: " + " ".join(str(err).split())
    return [drop_nulls(d) for d in docs], None


def drop_nulls(value):
    # The API server treats `key: null` as unset (e.g. `creationTimestamp: null`).
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value


# --- schemas ------------------------------------------------------------------------------

def make_strict(schema):
    """Adds additionalProperties: false to every object schema that lists properties."""
    if isinstance(schema, list):
        for sub in schema:
            make_strict(sub)
        return
    if not isinstance(schema, dict):
        return
    if ("properties" in schema and "additionalProperties" not in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")):
        schema["additionalProperties"] = False
    for key in ("properties", "patternProperties", "definitions"):
        for sub in (schema.get(key) or {}).values():
            make_strict(sub)
    for key in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
        if isinstance(schema.get(key), (dict, list)):
            make_strict(schema[key])


class Schemas:
    """Strict schemas by (apiVersion, kind), from Kubernetes definitions and CRDs."""

    def __init__(self, defs_path, crd_paths):
        try:
            with open(defs_path, encoding="utf-8") as f:
                self.defs = json.load(f)["definitions"]
        except (OSError, ValueError, KeyError) as err:
            raise SetupError(f"cannot load Kubernetes definitions {defs_path}: {err}") from err
        for definition in self.defs.values():
            make_strict(definition)
        self.by_kind = {}
        for name, definition in self.defs.items():
            for gvk in definition.get("x-kubernetes-group-version-kind", []):
                api = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
                self.by_kind.setdefault((api, gvk["kind"]), {"$ref": "#/definitions/" + name})
        for path in crd_paths:
            self._add_crds(path)
        self._validators = {}

    def _add_crds(self, path):
        # Trusted schema data: the plain C loader is five times faster than the strict one.
        try:
            with open(path, encoding="utf-8") as f:
                docs = list(yaml.load_all(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
        except (OSError, yaml.YAMLError) as err:
            raise SetupError(f"cannot read CRD {path}: {err}") from err
        crds = [d for d in docs if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition"]
        if not crds:
            raise SetupError(f"no CustomResourceDefinition in {path}")
        for crd in crds:
            spec = crd["spec"]
            for version in spec["versions"]:
                if not version.get("served", True):
                    continue
                schema = version["schema"]["openAPIV3Schema"]
                make_strict(schema)
                schema.setdefault("properties", {})["metadata"] = {"$ref": OBJECT_META}
                self.by_kind[(f"{spec['group']}/{version['name']}", spec["names"]["kind"])] = schema

    def errors(self, doc):
        api, kind = doc.get("apiVersion"), doc.get("kind")
        if not isinstance(api, str) or not isinstance(kind, str):
            return ["(root): apiVersion and kind are required"]
        key = (api, kind)
        if key not in self.by_kind:
            return [f"(root): no schema for {api} {kind} (unknown kinds fail; add its CRD with --crd)"]
        if key not in self._validators:
            self._validators[key] = jsonschema.Draft4Validator(dict(self.by_kind[key], definitions=self.defs))
        found = sorted(self._validators[key].iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
        return list(dict.fromkeys(format_error(e) for e in found))


def format_error(err):
    # For oneOf/anyOf failures, name the closest branch's error instead of "not valid under any".
    if err.context:
        err = jsonschema.exceptions.best_match(err.context) or err
    path = ".".join(str(p) for p in err.absolute_path) or "(root)"
    return f"{path}: {err.message}"


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


# --- inputs -------------------------------------------------------------------------------

def kustomization_path(directory):
    for name in KUSTOMIZATION_FILES:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return path
    return None


def is_remote(entry):
    return bool(re.match(r"^(https?://|git@|ssh://|git::|github\.com/)", entry)) or "?ref=" in entry


def display(path):
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


class Checker:
    def __init__(self, schemas, loader, rules):
        self.schemas, self.loader, self.rules = schemas, loader, rules
        self.documents = 0
        self.failures = []
        self.raw_seen = set()

    def fail(self, source, message, index=None, doc=None):
        where = source if index is None else f"{source}[doc {index}]"
        if isinstance(doc, dict):
            where += f" {doc.get('kind', '?')}/{dig(doc, 'metadata', 'name', default='?')}"
        line = f"FAIL {where}: {message}"
        self.failures.append(line)
        print(line)

    def check_documents(self, source, text, whole_unit):
        docs, error = load_documents(text, self.loader)
        if error:
            self.fail(source, error)
            return
        for index, doc in enumerate(docs):
            self.documents += 1
            if not isinstance(doc, dict):
                self.fail(source, "(root): a document must be a mapping", index)
                continue
            for message in self.schemas.errors(doc):
                self.fail(source, message, index, doc)
            if self.rules:
                try:
                    problems = object_rules(doc)
                except (TypeError, AttributeError, ValueError) as err:
                    # Rules assume the schema's types; a wrong type was reported above.
                    problems = [f"rules not checked: unexpected structure ({err})"]
                for message in problems:
                    self.fail(source, message, index, doc)
        if self.rules and whole_unit:
            for index, message in unit_rules(docs):
                self.fail(source, message, index, docs[index])

    def check_file(self, path, whole_unit):
        real = os.path.realpath(path)
        if real in self.raw_seen:
            return
        self.raw_seen.add(real)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as err:
            self.fail(display(path), f"cannot read: {err}")
            return
        self.check_documents(display(path), text, whole_unit)

    def raw_resources(self, directory, source, visiting=()):
        """Plain files named under resources/bases/components, following directories."""
        kustomization = kustomization_path(directory)
        real = os.path.realpath(directory)
        if kustomization is None or real in visiting:
            return []
        with open(kustomization, encoding="utf-8") as f:
            docs, error = load_documents(f.read(), self.loader)
        if error or not docs or not isinstance(docs[0], dict):
            return []  # the kustomize build reports it
        files = []
        entries = [e for key in ("resources", "bases", "components") for e in docs[0].get(key) or []]
        for entry in entries:
            if not isinstance(entry, str):
                continue
            if is_remote(entry):
                self.fail(source, f"remote resource {entry}: vendor it, the check runs offline")
                continue
            path = os.path.normpath(os.path.join(directory, entry))
            if os.path.isdir(path):
                files += self.raw_resources(path, source, visiting + (real,))
            elif os.path.isfile(path):
                files.append(path)
        return files


def start_build(directory):
    try:
        return subprocess.Popen(["kubectl", "kustomize", directory], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    except OSError as err:
        raise SetupError(f"cannot run kubectl ({err}); install kubectl >= 1.27 (kustomize v5)") from err


def plan(paths):
    """Expands the arguments into ('stdin'|'file'|'kustomize', path) units."""
    units = []
    for path in paths:
        if path == "-":
            units.append(("stdin", path))
        elif os.path.isfile(path):
            units.append(("file", path))
        elif os.path.isdir(path):
            found = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                if kustomization_path(root):
                    found.append(("kustomize", root))
                else:
                    found += [("file", os.path.join(root, f)) for f in sorted(files)
                              if f.endswith((".yaml", ".yml")) and not f.startswith(".")]
            if not found:
                raise SetupError(f"no kustomization or YAML file under {path}")
            units += found
        else:
            raise SetupError(f"no such file or directory: {path}")
    return units


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", metavar="PATH", help="YAML file, kustomize directory, directory tree or -")
    parser.add_argument("--k8s-defs", default=DEFAULT_DEFS, help="Kubernetes JSON-schema definitions (default: %(default)s)")
    parser.add_argument("--crd", action="append", help="CRD YAML to validate custom resources with "
                        "(repeatable; default: the MPIJob CRD in tests/manifests/schemas)")
    parser.add_argument("--no-rules", dest="rules", action="store_false", help="schema checks only")
    parser.add_argument("--list-rules", action="store_true", help="print raylaunch's rules and exit")
    args = parser.parse_args(argv)
    if args.list_rules:
        for name, text in RULES.items():
            print(f"{name}: {text}")
        for kind, reason in RAYLAUNCH_EXEMPT.items():
            print(f"exempt: {kind}: only no-shell, legacy-fabric-env and mpirun-np apply ({reason})")
        return EXIT_VALID
    if not args.paths:
        parser.error("at least one PATH is required")
    try:
        if IMPORT_ERROR is not None:
            raise SetupError(f"{IMPORT_ERROR} (apt-get install python3-yaml python3-jsonschema, and run "
                             "this with /usr/bin/python3; scripts/check-manifests does both)")
        units = plan(args.paths)
        # Builds run in the background while the schemas load.
        builds = {path: start_build(path) for kind, path in units
                  if kind == "kustomize" and not is_component(path)}
        loader = strict_loader()
        checker = Checker(Schemas(args.k8s_defs, args.crd or DEFAULT_CRDS), loader, args.rules)
    except SetupError as err:
        print(f"validate_manifests: error: {err}", file=sys.stderr)
        return EXIT_SETUP
    for kind, path in units:
        if kind == "stdin":
            checker.check_documents("<stdin>", sys.stdin.read(), True)
        elif kind == "file":
            checker.check_file(path, True)
        elif path in builds:
            source = f"kustomize({display(path)})"
            out, err = builds[path].communicate()
            if builds[path].returncode != 0:
                checker.fail(source, "kustomize build failed: " + " ".join(err.split()))
            else:
                for line in err.splitlines():
                    print(f"WARN {source}: {line}", file=sys.stderr)
                checker.check_documents(source, out, True)
            for raw in checker.raw_resources(path, source):
                checker.check_file(raw, False)
    print(f"{checker.documents} documents checked, {len(checker.failures)} failures")
    return EXIT_INVALID if checker.failures else EXIT_VALID


def is_component(directory):
    with open(kustomization_path(directory), encoding="utf-8") as f:
        return re.search(r"^kind:\s*Component\s*$", f.read(), re.MULTILINE) is not None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
