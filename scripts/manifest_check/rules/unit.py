"""Rules across the objects of one build or file: the Services a workload names, which pods each
selector picks, and the Redis settings shared by a cluster and its cleanup Job. The objects
that guard a cluster (PodDisruptionBudget, NetworkPolicy) are in guards.py."""
import json

from . import guards
from ..objects import (CONTROLLER_LABELS, containers, dig, env_entry, pod_templates,
                             raylaunch_subcommand, selects)


def unit_rules(docs):
    """(index of the document, message) for every problem."""
    docs = [d if isinstance(d, dict) else {} for d in docs]
    return (headless_service_rules(docs) + selector_rules(docs) + guards.guard_rules(docs, workloads(docs))
            + gcs_ft_unit_rules(docs))


def headless_service_rules(docs):
    services = {dig(d, "metadata", "name"): d for d in docs if d.get("kind") == "Service"}
    problems = []
    for index, doc in enumerate(docs):
        names = []
        if doc.get("kind") == "StatefulSet":
            names.append(("spec.serviceName", dig(doc, "spec", "serviceName")))
        for where, template in pod_templates(doc):
            if doc.get("kind") != "MPIJob" and template["spec"].get("subdomain"):
                names.append((f"{where}.subdomain", template["spec"]["subdomain"]))
        for field, name in names:
            service = services.get(name)
            if service is None:
                problems.append((index, f"rule headless-service: {field} names Service {json.dumps(name)}, "
                                        "which is not among the objects checked with it (same build or file)"))
            elif dig(service, "spec", "clusterIP") != "None":
                problems.append((index, f"rule headless-service: {field} names Service {json.dumps(name)}, "
                                        "which must be headless (clusterIP: None)"))
    return problems


# --- one-cluster: each selector picks the pods of one workload ------------------------------

def workloads(docs):
    """(name, pod labels, labels its controller adds, object) for every pod template in the unit."""
    found = []
    for doc in docs:
        for _, template in pod_templates(doc):
            name = f"{doc.get('kind')}/{dig(doc, 'metadata', 'name', default='?')}"
            labels = dig(template, "metadata", "labels") or {}
            found.append((name, labels, CONTROLLER_LABELS.get(doc.get("kind"), set()), doc))
    return found


def selectors(doc):
    """(field, selector, must select something) for the pod selectors of a Service, PDB, NetworkPolicy or
    PodMonitor (one that selects two clusters' pods scrapes each of them twice, once per PodMonitor)."""
    kind = doc.get("kind")
    if kind == "Service" and dig(doc, "spec", "selector"):
        yield "spec.selector", doc["spec"]["selector"], True
    elif kind in ("PodDisruptionBudget", "PodMonitor"):
        yield "spec.selector", dig(doc, "spec", "selector", default={}), True
    elif kind == "NetworkPolicy":
        yield "spec.podSelector", dig(doc, "spec", "podSelector", default={}), True
        for direction, peers in (("ingress", "from"), ("egress", "to")):
            for i, rule in enumerate(dig(doc, "spec", direction) or []):
                for j, peer in enumerate(rule.get(peers) or [] if isinstance(rule, dict) else []):
                    # A peer with a namespaceSelector may mean other namespaces' pods: not ours to judge.
                    if isinstance(peer, dict) and "podSelector" in peer and "namespaceSelector" not in peer:
                        yield f"spec.{direction}[{i}].{peers}[{j}].podSelector", peer["podSelector"], False


def selector_rules(docs):
    pods = workloads(docs)
    if not pods:
        return []  # a file of Services alone: nothing to match against
    problems = []
    for index, doc in enumerate(docs):
        for field, selector, required in selectors(doc):
            # One object is one cluster, whatever number of pod templates it has (LWS, JobSet).
            matched = list(dict.fromkeys(name for name, labels, wildcard, _ in pods
                                         if selects(selector, labels, wildcard)))
            if len(matched) > 1:
                problems.append((index, f"rule one-cluster: {field} {json.dumps(selector, sort_keys=True)} selects the "
                                        f"pods of {' and '.join(matched)}: give each cluster its own label "
                                        "(docs/deploy.md#two-clusters-in-one-namespace)"))
            elif not matched and required:
                problems.append((index, f"rule one-cluster: {field} {json.dumps(selector, sort_keys=True)} selects no "
                                        "pod of this build (a StatefulSet's pods carry apps.kubernetes.io/pod-index, "
                                        "a Job's batch.kubernetes.io/job-completion-index)"))
    return problems


# --- gcs-ft: one Redis namespace per cluster, and its cleanup Job ---------------------------

def resolve(entry, config_maps):
    """An env entry's value: the literal, the ConfigMap's value, or a description of its source."""
    if entry is None:
        return None
    if "valueFrom" not in entry:
        return str(entry.get("value", ""))
    ref = dig(entry, "valueFrom", "configMapKeyRef") or {}
    data = dig(config_maps.get(ref.get("name")), "data") or {}
    if ref.get("key") in data:
        return str(data[ref["key"]])
    return json.dumps(entry["valueFrom"], sort_keys=True)


REDIS_TLS_FILES = ("RAY_REDIS_CA_CERT", "RAY_REDIS_CA_PATH", "RAY_REDIS_CLIENT_CERT", "RAY_REDIS_CLIENT_KEY")


def redis_tls_problems(where, container, address, sub):
    """Redis over TLS wired so that raylaunch starts: TLS settings only with rediss://, every file
    they name mounted, and a CA for the cleanup Job, whose raylaunch image (FROM scratch) has no
    system trust store."""
    settings = {name: env_entry(container, name) for name in REDIS_TLS_FILES + ("RAY_REDIS_SERVER_NAME",)}
    given = [name for name, entry in settings.items() if entry is not None]
    if not address.startswith("rediss://"):
        return [f"rule gcs-ft: {where} sets {given[0]} but RAY_REDIS_ADDRESS {address} is not rediss://: raylaunch "
                "refuses to start (exit 64) rather than talk to Redis in plaintext"] if given else []
    problems = []
    mounts = [m.get("mountPath", "") for m in container.get("volumeMounts") or [] if isinstance(m, dict)]
    for name in REDIS_TLS_FILES:
        entry = settings[name]
        path = str(entry.get("value", "")) if entry is not None and "valueFrom" not in entry else None
        if path and not any(path == m or path.startswith(m.rstrip("/") + "/") for m in mounts):
            problems.append(f"rule gcs-ft: {where} {name}={path} is under no volumeMount: mount the Secret that "
                            "holds it (raylaunch exits 64 on a missing file)")
    if sub == "redis-cleanup" and settings["RAY_REDIS_CA_CERT"] is None and settings["RAY_REDIS_CA_PATH"] is None:
        problems.append(f"rule gcs-ft: {where} runs redis-cleanup over TLS without RAY_REDIS_CA_CERT: the raylaunch "
                        "image has no system trust store, so it cannot verify the server (mount the CA, as "
                        "components/gcs-ft-tls does)")
    return problems


def redis_containers(docs):
    """(index, doc, 'run'|'redis-cleanup', (address, namespace), where, container) for each container
    that uses Redis, its address and namespace resolved through the ConfigMaps of the unit."""
    config_maps = {dig(d, "metadata", "name"): d for d in docs if d.get("kind") == "ConfigMap"}
    found = []
    for index, doc in enumerate(docs):
        for where, template in pod_templates(doc):
            for cname, container in containers(template["spec"]):
                sub = raylaunch_subcommand(container.get("command"))
                address = resolve(env_entry(container, "RAY_REDIS_ADDRESS"), config_maps)
                if sub in ("run", "redis-cleanup") and address is not None:
                    namespace = resolve(env_entry(container, "RAY_external_storage_namespace"), config_maps)
                    found.append((index, doc, sub, (address, namespace), f"{where}.{cname}", container))
    return found


def redis_users(docs):
    """(index, doc, 'run'|'redis-cleanup', (address, namespace)) for each container that uses Redis."""
    return [found[:4] for found in redis_containers(docs)]


def gcs_ft_unit_rules(docs):
    users = redis_users(docs)
    clusters = {}
    for index, doc, sub, key in users:
        if sub == "run":
            clusters.setdefault(key, []).append((index, f"{doc.get('kind')}/{dig(doc, 'metadata', 'name')}"))
    problems = []
    for index, doc, sub, (address, _), where, container in redis_containers(docs):
        problems += [(index, m) for m in redis_tls_problems(where, container, address, sub)]
    for (address, namespace), owners in clusters.items():
        if len({name for _, name in owners}) > 1:
            names = " and ".join(sorted({name for _, name in owners}))
            problems.append((owners[0][0], f"rule gcs-ft: {names} share Redis {address} and storage namespace "
                                           f"{namespace}: their GCS tables would overwrite each other"))
    for index, doc, sub, key in users:
        if sub != "redis-cleanup" or not clusters:
            continue
        if dig(doc, "spec", "suspend") is not True:
            problems.append((index, "rule gcs-ft: the redis-cleanup Job is applied with the cluster it cleans up, so "
                                    "it must be committed with spec.suspend: true (unsuspend it once the cluster is "
                                    "deleted), or it deletes a live cluster's keys"))
        if key not in clusters:
            problems.append((index, f"rule gcs-ft: the redis-cleanup Job uses Redis {key[0]} and storage namespace "
                                    f"{key[1]}, which no cluster of this build uses: it would clean up nothing"))
    return problems
