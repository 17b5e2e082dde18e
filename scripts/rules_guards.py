"""Rules for the objects that guard a raylaunch cluster in a deployable build: a
PodDisruptionBudget that keeps every pod, and a NetworkPolicy that keeps Ray's ports to the
cluster's own pods (the dashboard, the Ray client and the GCS run code for whoever reaches them).

A build counts as deployable for a workload when it also holds the headless Service the workload
names; a raw file or a lone workload is not asked for its guards.
"""
from manifest_common import as_int, containers, dig, env_value, pod_templates, raylaunch_subcommand, selects

SCALABLE = {"StatefulSet", "Deployment", "ReplicaSet"}  # kinds with a scale subresource
# Ray's ports that must not be open to every source (the GCS and raylet ports come from env).
RAY_PORTS = {8265: "the dashboard", 10001: "the Ray client", 52365: "the dashboard agent"}


def guard_rules(docs, pods):
    """pods: rules_unit.workloads(docs), (name, labels, controller labels, object)."""
    problems = []
    services = {dig(d, "metadata", "name") for d in docs if d.get("kind") == "Service"}
    for name, labels, wildcard, owner in pods:
        run = [c for _, t in pod_templates(owner) for _, c in containers(t["spec"])
               if raylaunch_subcommand(c.get("command")) == "run"]
        if not run:
            continue
        budgets = [(i, d) for i, d in enumerate(docs) if d.get("kind") == "PodDisruptionBudget"
                   and selects(dig(d, "spec", "selector", default={}), labels, wildcard)]
        policies = [(i, d) for i, d in enumerate(docs) if d.get("kind") == "NetworkPolicy"
                    and selects(dig(d, "spec", "podSelector", default={}), labels, wildcard)]
        index = docs.index(owner)
        deployable = headless_service(owner) in services
        if deployable and not budgets:
            problems.append((index, f"rule disruption-budget: no PodDisruptionBudget selects the pods of {name}: a "
                                    "drain or a Karpenter disruption may evict one and end the run"))
        if deployable and not policies:
            problems.append((index, f"rule network-policy: no NetworkPolicy selects the pods of {name}: anyone who "
                                    "reaches the dashboard, the Ray client or the GCS can run code in them"))
        for i, budget in budgets:
            problems += [(i, m) for m in budget_problems(budget, name, owner)]
        for i, policy in policies:
            problems += [(i, m) for m in policy_problems(policy, run[0])]
    return problems


def pod_count(doc):
    spec = doc.get("spec") or {}
    count = spec.get("parallelism", 1) if doc.get("kind") == "Job" else spec.get("replicas", 1)
    return count if isinstance(count, int) else None


def headless_service(doc):
    if doc.get("kind") == "StatefulSet":
        return dig(doc, "spec", "serviceName")
    return next((t["spec"].get("subdomain") for _, t in pod_templates(doc)), None)


def budget_problems(budget, name, owner):
    spec = budget.get("spec") or {}
    count, minimum, maximum = pod_count(owner), spec.get("minAvailable"), spec.get("maxUnavailable")
    if owner.get("kind") not in SCALABLE and (maximum is not None or isinstance(minimum, str)):
        return [f"rule disruption-budget: it selects the pods of {name}, which has no scale subresource: the "
                "disruption controller then supports only an integer minAvailable (not maxUnavailable, not a "
                "percentage)"]
    if isinstance(minimum, int) and count is not None and minimum < count:
        return [f"rule disruption-budget: minAvailable {minimum} < the {count} pods of {name}: an eviction could "
                "take a node out of the running Ray cluster"]
    if isinstance(maximum, int) and maximum > 0:
        return [f"rule disruption-budget: maxUnavailable {maximum} lets an eviction take a node out of {name}'s "
                "running Ray cluster"]
    return []


def any_source(peers):
    """Whether an ingress rule's `from` admits every source."""
    if not peers:
        return True
    for peer in peers:
        if not isinstance(peer, dict):
            continue
        if dig(peer, "ipBlock", "cidr") in ("0.0.0.0/0", "::/0"):
            return True
        if "namespaceSelector" in peer and not peer["namespaceSelector"] and not peer.get("podSelector"):
            return True  # every pod of every namespace
    return False


def policy_problems(policy, container):
    spec = policy.get("spec") or {}
    ray_ports = dict(RAY_PORTS)
    for setting, default, what in (("RAYLAUNCH_RAY_PORT", "6379", "the GCS"),
                                   ("RAYLAUNCH_NODE_MANAGER_PORT", "6380", "the raylet")):
        port = as_int(env_value(container, setting, default) or default)
        if port is not None:
            ray_ports[port] = what
    problems = []
    for i, rule in enumerate(spec.get("ingress") or []):
        if not isinstance(rule, dict) or not any_source(rule.get("from")):
            continue
        ports = [p.get("port") for p in rule.get("ports") or [] if isinstance(p, dict)]
        if not ports:
            problems.append(f"rule network-policy: spec.ingress[{i}] admits every source on every port, the Ray "
                            "ports included; admit the cluster's own pods (a podSelector) instead")
        for port in ports:
            if port in ray_ports:
                problems.append(f"rule network-policy: spec.ingress[{i}] admits every source on port {port} "
                                f"({ray_ports[port]}); only the health and metrics ports may be open to all")
    return problems
