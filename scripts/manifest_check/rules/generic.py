"""Rules for every object, raylaunch pod or not: no-shell, legacy-fabric-env, plaintext-secret,
gpu-pods, mpirun-np and nccl-fabric."""
import json
import os
import re

from ..objects import argv, argv_lists, containers, dig, env_entries, inline_shell, pod_templates, as_int

# Name parts (split at "_") that mark a variable as a credential. Whole parts only, so
# TOKENIZERS_PARALLELISM is not one; a trailing PATH/FILE/DIR/NAME part names where the secret
# is (RAY_AUTH_TOKEN_PATH), not the secret itself.
SECRET_PARTS = {"PASSWORD", "PASSWD", "TOKEN", "SECRET", "APIKEY", "CREDENTIALS", "PASSPHRASE"}
NOT_SECRET_SUFFIXES = {"PATH", "FILE", "DIR", "NAME"}
# A name with one of these parts turns a feature on or off (RAY_ENABLE_K8S_TOKEN_AUTH): a switch,
# not a credential.
SWITCH_PARTS = {"ENABLE", "DISABLE"}
# A value that only refers to other variables ($(REDIS_PASSWORD)) is expanded by the kubelet
# from wherever those come from; it is not the secret itself.
ONLY_REFERENCES = re.compile(r"(\$\([A-Za-z_][A-Za-z0-9_.-]*\))+")
# --redis-password=..., --token ... in an argv.
SECRET_FLAG = re.compile(r"--?[A-Za-z0-9-]*(password|passwd|token|secret|api-key)(=(.*))?", re.IGNORECASE)
URL_CREDENTIALS = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@:\s]*:([^/@\s]+)@", re.IGNORECASE)


def is_secret_name(name):
    parts = [p for p in str(name).upper().replace("-", "_").split("_") if p]
    if not parts or parts[-1] in NOT_SECRET_SUFFIXES or SWITCH_PARTS & set(parts):
        return False
    joined = "_".join(parts)
    return any(p in SECRET_PARTS for p in parts) or "API_KEY" in joined or "ACCESS_KEY" in joined


def literal_secret(value):
    text = str(value)
    return text.strip() != "" and not ONLY_REFERENCES.fullmatch(text.strip())


def url_password(value):
    """Whether a URL carries a literal password (redis://user:pw@host); $(VAR) is not one."""
    match = URL_CREDENTIALS.match(str(value))
    return bool(match) and literal_secret(match.group(1))


def shell_rules(doc):
    problems = []
    for where, template in pod_templates(doc):
        for cname, container in containers(template["spec"]):
            for field, args in argv_lists(container):
                script = inline_shell(args)
                if script:
                    problems.append(f"rule no-shell: {where}.{cname}.{field} runs an inline shell script "
                                    f"({json.dumps(script)}); give the program's argv directly")
    return problems


def legacy_env_rules(doc, env_rules):
    problems = []
    for where, template in pod_templates(doc):
        for cname, container in containers(template["spec"]):
            variables = [(e["name"], None if "valueFrom" in e else str(e.get("value", "")))
                         for e in env_entries(container)]
            args = argv(container)
            for i, arg in enumerate(args[:-1]):
                if arg == "-x":  # mpirun -x NAME=VALUE exports to every rank; -x NAME passes the launcher's
                    name, sep, value = args[i + 1].partition("=")
                    variables.append((name, value if sep else None))
            for name, value in variables:
                for why, fix in env_rules.problems(name, value):
                    shown = name if value is None else f"{name}={value}"
                    problems.append(f"rule legacy-fabric-env: {where}.{cname} sets {shown}: {why} (fix: {fix})")
    return problems


def plaintext_secret_rules(doc):
    kind = doc.get("kind")
    problems = []
    advice = ("put it in a Secret created outside git (kubectl create secret, or an external secrets "
              "operator) and use valueFrom.secretKeyRef")
    if kind == "Secret":
        for field in ("data", "stringData"):
            if doc.get(field):
                keys = ", ".join(sorted(str(k) for k in doc[field]))
                problems.append(f"rule plaintext-secret: a committed Secret holds {field} ({keys}); create it with "
                                "`kubectl create secret generic ...` or an external secrets operator instead")
    if kind == "ConfigMap":
        for key, value in (doc.get("data") or {}).items():
            if is_secret_name(key) and literal_secret(value):
                problems.append(f"rule plaintext-secret: ConfigMap key {key} holds a credential in plain text; {advice}")
            elif url_password(value):
                problems.append(f"rule plaintext-secret: ConfigMap key {key} is a URL with a password in it; {advice}")
    for where, template in pod_templates(doc):
        for cname, container in containers(template["spec"]):
            here = f"{where}.{cname}"
            for entry in env_entries(container):
                name, ref = entry["name"], dig(entry, "valueFrom", "configMapKeyRef")
                if "valueFrom" not in entry and is_secret_name(name) and literal_secret(entry.get("value", "")):
                    problems.append(f"rule plaintext-secret: {here} env {name} has its value in plain text; {advice}")
                elif ref is not None and is_secret_name(name):
                    problems.append(f"rule plaintext-secret: {here} env {name} comes from ConfigMap "
                                    f"{ref.get('name')}, which is plain text; use a Secret (secretKeyRef)")
                elif "valueFrom" not in entry and url_password(entry.get("value", "")):
                    problems.append(f"rule plaintext-secret: {here} env {name} is a URL with a password in it; "
                                    "keep the password in its own variable from a Secret (e.g. REDIS_PASSWORD)")
            args = argv(container)
            for i, arg in enumerate(args):
                match = SECRET_FLAG.fullmatch(arg)
                if not match:
                    continue
                value = match.group(3) if match.group(2) else (args[i + 1] if i + 1 < len(args) else "")
                if literal_secret(value) and not value.startswith("-"):
                    flag = arg.split("=", 1)[0]
                    problems.append(f"rule plaintext-secret: {here} passes {flag} with a literal value; "
                                    "pass $(VAR) with VAR from a Secret instead")
    return problems


GPU_RESOURCES = ("nvidia.com/gpu", "vpc.amazonaws.com/efa")
# Keys that only narrow the machine type; a GPU pod must also select its node pool.
TYPE_ONLY_KEYS = {"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type",
                  "kubernetes.io/arch", "kubernetes.io/os"}


def gpu_pod_rules(doc):
    problems = []
    for where, template in pod_templates(doc):
        spec = template["spec"]
        wanted = sorted({r for _, c in containers(spec) for r in GPU_RESOURCES
                         if (as_int(dig(c, "resources", "limits", r, default=0)) or 0) > 0})
        if not wanted:
            continue
        if dig(template, "metadata", "annotations", "karpenter.sh/do-not-disrupt") != "true":
            problems.append(f'rule gpu-pods: {where} requests {", ".join(wanted)} but its pod template lacks the '
                            'annotation karpenter.sh/do-not-disrupt: "true" (Karpenter may consolidate the node mid-run)')
        selector = spec.get("nodeSelector") or {}
        if not set(selector) - TYPE_ONLY_KEYS:
            problems.append(f"rule gpu-pods: {where}.nodeSelector {json.dumps(selector)} selects no node pool; add "
                            "your GPU pool's label (role: gpu-training, or karpenter.sh/nodepool: <pool>)")
        taints = {t.get("key") for t in spec.get("tolerations") or [] if isinstance(t, dict)}
        if "nvidia.com/gpu" in wanted and "nvidia.com/gpu" not in taints:
            problems.append(f"rule gpu-pods: {where}.tolerations lack nvidia.com/gpu (GPU nodes carry that taint)")
    return problems


def mpirun_rules(doc):
    spec = doc.get("spec") or {}
    workers = dig(spec, "mpiReplicaSpecs", "Worker", "replicas", default=1)
    slots = spec.get("slotsPerWorker", 1)
    problems = []
    if not isinstance(workers, int) or not isinstance(slots, int):
        return problems  # the schema check reports the wrong type
    for _, template in pod_templates(doc):
        for cname, container in containers(template["spec"]):
            args = argv(container)
            for i, arg in enumerate(args[:-1]):
                if arg in ("-np", "--np") and as_int(args[i + 1]) != workers * slots:
                    problems.append(f"rule mpirun-np: {cname} runs mpirun {arg} {args[i + 1]}, but Worker replicas "
                                    f"x slotsPerWorker = {workers * slots} (or drop -np: mpirun uses the hostfile)")
    return problems


# Exported to every rank by the launcher's mpirun when the workers have EFA: libfabric may use
# its EFA provider only (not its tcp one), and NCCL must not fall back to its own sockets when
# the plugin fails (NCCL_NET "doesn't automatically fall back"; aws-ofi-nccl answers to
# "Libfabric", src/nccl_ofi_interface_nvidia.cpp nvidia_plugin_name_fixup). A broken fabric then
# fails the test instead of reporting socket bandwidth.
STRICT_FABRIC = {"FI_PROVIDER": "efa", "NCCL_NET": "Libfabric"}


def mpijob_fabric_rules(doc):
    """An NCCL-tests MPIJob over EFA checks the fabric the training pods use, the same way."""
    workers = dig(doc, "spec", "mpiReplicaSpecs", "Worker", "template", "spec") or {}
    efa = [(cname, c) for cname, c in containers(workers)
           if (as_int(dig(c, "resources", "limits", "vpc.amazonaws.com/efa", default=0)) or 0) > 0]
    if not efa:
        return []
    problems = []
    for cname, container in efa:
        added = {str(c).upper().removeprefix("CAP_") for c in dig(container, "securityContext", "capabilities", "add") or []}
        if "IPC_LOCK" not in added:
            problems.append(f"rule nccl-fabric: spec.mpiReplicaSpecs.Worker.template.spec.{cname} has EFA devices but "
                            "does not add IPC_LOCK: libfabric cannot pin its buffers beyond the runtime's memlock limit "
                            "(\"Failure to post internal receive buffers\"); the training pods add it, the fabric check "
                            "must too")
    launcher = dig(doc, "spec", "mpiReplicaSpecs", "Launcher", "template", "spec") or {}
    for cname, container in containers(launcher):
        args = argv(container)
        exported = {args[i + 1] for i, a in enumerate(args[:-1]) if a == "-x"}
        missing = [f"{k}={v}" for k, v in STRICT_FABRIC.items() if f"{k}={v}" not in exported]
        if missing and any(os.path.basename(a) == "mpirun" for a in args):
            problems.append(f"rule nccl-fabric: spec.mpiReplicaSpecs.Launcher.template.spec.{cname} runs mpirun without "
                            f"-x {' -x '.join(missing)}: on a broken fabric NCCL falls back to sockets and the test "
                            "reports socket bandwidth instead of failing")
    return problems
