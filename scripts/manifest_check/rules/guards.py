"""Rules for the objects that guard a raylaunch cluster in a deployable build: a
PodDisruptionBudget that keeps every pod, and a NetworkPolicy that keeps Ray's ports to the
cluster's own pods (the dashboard, the Ray client and the GCS run code for whoever reaches them).

A build counts as deployable for a workload when it also holds the headless Service the workload
names; a raw file or a lone workload is not asked for its guards.
"""
from ..objects import as_int, containers, dig, env_value, pod_templates, raylaunch_subcommand, selects

DNS_PORT = 53

SCALABLE = {"StatefulSet", "Deployment", "ReplicaSet"}  # kinds with a scale subresource
# Ray's ports that must not be open to every source (the GCS and raylet ports come from env).
RAY_PORTS = {8265: "the dashboard", 10001: "the Ray client", 52365: "the dashboard agent"}


def guard_rules(docs, pods):
    """pods: unit.workloads(docs), (name, labels, controller labels, object)."""
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
        problems += traffic_problems(policies, labels, wildcard, name)
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


# --- traffic the cluster itself needs ------------------------------------------------------

def restricts(policy, direction):
    """Whether the policy limits traffic in that direction ("Ingress" or "Egress")."""
    types = dig(policy, "spec", "policyTypes")
    if types is None:  # the API server's default: Ingress, plus Egress when egress rules exist
        types = ["Ingress"] + (["Egress"] if dig(policy, "spec", "egress") else [])
    return direction in types


def reaches_own_pods(peers, labels, wildcard):
    if not peers:
        return True
    return any(isinstance(p, dict) and "ipBlock" not in p and selects(p.get("podSelector") or {}, labels, wildcard)
               and (p.get("namespaceSelector") is None or p.get("namespaceSelector") == {}) for p in peers)


def allows_dns(rule):
    """An egress rule that admits UDP 53 to somewhere outside the pod's own workload."""
    ports = [p for p in rule.get("ports") or [] if isinstance(p, dict)]
    udp53 = not ports or any(p.get("protocol", "TCP") == "UDP" and p.get("port") in (DNS_PORT, "dns", "domain")
                             for p in ports)
    peers = rule.get("to") or []
    anywhere = not peers or any(isinstance(p, dict) and ("namespaceSelector" in p or "ipBlock" in p) for p in peers)
    return udp53 and anywhere


def traffic_problems(policies, labels, wildcard, name):
    """Ray's pods talk to each other on many ports (GCS, raylets, object manager, workers, NCCL's
    bootstrap), and every pod resolves the head's name through DNS: policies that narrow either
    break the cluster. NetworkPolicies add up, so the rules of all that select the pods count."""
    if not policies:
        return []
    problems = []
    first = policies[0][0]
    for direction, peers_key in (("Ingress", "from"), ("Egress", "to")):
        limiting = [p for _, p in policies if restricts(p, direction)]
        if not limiting:
            continue
        rules = [r for p in limiting for r in dig(p, "spec", direction.lower()) or [] if isinstance(r, dict)]
        if not any(not r.get("ports") and reaches_own_pods(r.get(peers_key), labels, wildcard) for r in rules):
            problems.append((first, f"rule network-policy: no {direction.lower()} rule admits the pods of {name} to "
                                    "each other on every port: Ray's raylets, object manager, workers and NCCL's "
                                    "bootstrap use ports beyond the GCS, so the cluster cannot form (keep a rule "
                                    f"with the cluster's podSelector in `{peers_key}` and no `ports`)"))
        if direction == "Egress" and not any(allows_dns(r) for r in rules):
            problems.append((first, f"rule network-policy: egress of the pods of {name} is limited and no rule admits "
                                    "DNS (UDP 53 to CoreDNS in kube-system): no pod can resolve the head's name; add "
                                    "an egress rule to port 53 (UDP and TCP) with a namespaceSelector"))
    return problems
