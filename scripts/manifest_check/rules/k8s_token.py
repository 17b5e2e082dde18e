"""Rule k8s-token: Ray's Kubernetes token mode (RAY_ENABLE_K8S_TOKEN_AUTH, Ray >= 2.55) wired so
that Ray's processes accept each other (components/auth-k8s-token).

In that mode every Ray process sends the token projected at TOKEN_PATH and checks each caller's
with the API server (ray src/ray/rpc/authentication/k8s_util.cc): a TokenReview that names no
audience (so the token must be for the API server's own), then a SubjectAccessReview of the verb
ray:write on rayclusters.ray.io named RAY_CLUSTER_NAME in RAY_CLUSTER_NAMESPACE. Those calls
authenticate with the pod's own API token (automounted) and need create on both reviews
(cluster-wide); the callers' identity, the pods' ServiceAccount, needs ray:write. Anything
missing fails no start: every call between the nodes is refused instead. A static token beside
it (RAY_AUTH_TOKEN, components/auth-token) wins in Ray's loader and is refused by the review.
"""
import json

from ..objects import containers, dig, env_entry, env_literal, int_field, pod_templates, raylaunch_subcommand

RULE = "rule k8s-token:"
SWITCH = "RAY_ENABLE_K8S_TOKEN_AUTH"
TOKEN_PATH = "/var/run/secrets/ray.io/serviceaccount/token"
API_TOKEN_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
MIN_EXPIRATION_S = 600  # the API server refuses a shorter projected token
REVIEWS = (("authentication.k8s.io", "tokenreviews"), ("authorization.k8s.io", "subjectaccessreviews"))
STATIC = ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")


def k8s_mode(container):
    present, value = env_literal(container, SWITCH)
    return present and str(value).strip().lower() in ("true", "1")


def ray_containers(spec):
    return [(name, c) for name, c in containers(spec) if raylaunch_subcommand(c.get("command")) == "run"]


def token_volume(spec, container):
    """(mount, volume, serviceAccountToken source) that puts a token at TOKEN_PATH, or None."""
    volumes = {v.get("name"): v for v in spec.get("volumes") or [] if isinstance(v, dict)}
    for mount in container.get("volumeMounts") or []:
        if not isinstance(mount, dict) or not isinstance(mount.get("mountPath"), str) or mount.get("subPath"):
            continue
        root = mount["mountPath"].rstrip("/")
        for source in dig(volumes.get(mount.get("name")), "projected", "sources") or []:
            token = source.get("serviceAccountToken") if isinstance(source, dict) else None
            if isinstance(token, dict) and f"{root}/{str(token.get('path', '')).strip('/')}" == TOKEN_PATH:
                return mount, volumes[mount["name"]], token
    return None


def token_problems(here, spec, container):
    found = token_volume(spec, container)
    if found is None:
        return [f"{RULE} {here}: {SWITCH}=true but no projected serviceAccountToken is mounted at {TOKEN_PATH}, "
                "where Ray reads the token it presents: every call between the nodes is refused "
                "(components/auth-k8s-token)"]
    _, volume, token = found
    problems = []
    audience = token.get("audience")
    if audience:
        problems.append(f"{RULE} {here}: the token at {TOKEN_PATH} (volume {volume.get('name')}) has audience "
                        f"{json.dumps(audience)}: Ray's TokenReview names no audience, so the API server reviews it "
                        "for its own and refuses it; leave the audience out, as KubeRay does")
    expiration = int_field(token, "expirationSeconds", 3600)
    if expiration is not None and expiration < MIN_EXPIRATION_S:
        problems.append(f"{RULE} {here}: the token at {TOKEN_PATH} has expirationSeconds {expiration}: the API "
                        f"server accepts no less than {MIN_EXPIRATION_S}")
    return problems


def api_token_mounted(spec, container):
    return spec.get("automountServiceAccountToken") is not False or any(
        isinstance(m, dict) and str(m.get("mountPath", "")).rstrip("/") == API_TOKEN_DIR
        for m in container.get("volumeMounts") or [])


def container_problems(here, spec, container):
    problems = []
    present, mode = env_literal(container, "RAY_AUTH_MODE")
    if not present or (mode is not None and mode.strip().lower() != "token"):
        problems.append(f"{RULE} {here}: {SWITCH}=true without RAY_AUTH_MODE=token: Ray checks no token at all")
    for name in STATIC:
        if env_entry(container, name) is not None:
            problems.append(f"{RULE} {here}: {SWITCH}=true and {name} are both set: Ray sends the static token "
                            "first and the API server's review refuses it; use components/auth-token or "
                            "components/auth-k8s-token, not both")
    for name in ("RAY_CLUSTER_NAME", "RAY_CLUSTER_NAMESPACE"):
        if env_entry(container, name) is None:
            problems.append(f"{RULE} {here}: {SWITCH}=true without {name}: Ray's SubjectAccessReview needs it and "
                            "refuses every caller without it")
    problems += token_problems(here, spec, container)
    if not api_token_mounted(spec, container):
        problems.append(f"{RULE} {here}: {SWITCH}=true with automountServiceAccountToken: false and nothing at "
                        f"{API_TOKEN_DIR}: Ray's TokenReview calls authenticate with the pod's API token and its "
                        "ca.crt (set automountServiceAccountToken: true on the pod)")
    return problems


def k8s_token_rules(doc):
    """Object rule: the mode, the tokens and the settings of every Ray container of the workload."""
    problems = []
    for where, template in pod_templates(doc):
        spec = template["spec"]
        ray = ray_containers(spec)
        on = [name for name, c in ray if k8s_mode(c)]
        if not on:
            continue
        for name, container in ray:
            if name not in on:
                problems.append(f"{RULE} {where}.{name}: {SWITCH} is not set here but is on {', '.join(on)}: every "
                                "Ray container of the cluster checks and presents tokens the same way")
            else:
                problems += container_problems(f"{where}.{name}", spec, container)
        account = spec.get("serviceAccountName")
        if account in (None, "", "default"):
            problems.append(f"{RULE} {where}: {SWITCH}=true with the namespace's `default` ServiceAccount: "
                            "grant ray:write and the reviews to a ServiceAccount of the cluster's own")
    return problems


# --- RBAC, across the objects of a build and the cluster-wide files beside its components -----

def grants(rule, group, resource, verb, name=None):
    if not isinstance(rule, dict):
        return False

    def has(key, value):
        values = rule.get(key) or []
        return "*" in values or value in values
    names = rule.get("resourceNames") or []
    return has("apiGroups", group) and has("resources", resource) and has("verbs", verb) \
        and (not names or name in names)


def bound_roles(docs, account, namespaced):
    """The rules of every Role/ClusterRole in docs that a (Cluster)RoleBinding gives `account`."""
    roles = {(d.get("kind"), dig(d, "metadata", "name")): d.get("rules") or [] for d in docs
             if d.get("kind") in ("Role", "ClusterRole")}
    kinds = ("RoleBinding", "ClusterRoleBinding") if namespaced else ("ClusterRoleBinding",)
    found = []
    for binding in (d for d in docs if d.get("kind") in kinds):
        subjects = [s for s in binding.get("subjects") or [] if isinstance(s, dict)]
        if any(s.get("kind") == "ServiceAccount" and s.get("name") == account for s in subjects):
            ref = binding.get("roleRef") or {}
            found += roles.get((ref.get("kind"), ref.get("name")), [])
    return found


def users(docs):
    """(index, account, cluster name) of each workload in k8s token mode."""
    found = []
    for index, doc in enumerate(docs):
        for _, template in pod_templates(doc):
            ray = [c for _, c in ray_containers(template["spec"]) if k8s_mode(c)]
            if ray:
                _, name = env_literal(ray[0], "RAY_CLUSTER_NAME")
                found.append((index, template["spec"].get("serviceAccountName") or "default", name))
    return found


def k8s_token_unit_rules(docs):
    """(index, message): the pods' ServiceAccount may use ray:write on its cluster, and does not turn
    the API token off when the pod leaves it to the account."""
    problems = []
    accounts = {dig(d, "metadata", "name"): d for d in docs if d.get("kind") == "ServiceAccount"}
    for index, account, cluster in users(docs):
        rules = bound_roles(docs, account, namespaced=True)
        if not any(grants(r, "ray.io", "rayclusters", "ray:write", cluster) for r in rules):
            problems.append((index, f"{RULE} no Role bound to ServiceAccount {account} in this build grants the verb "
                                    f"ray:write on rayclusters.ray.io {json.dumps(cluster) if cluster else '(RAY_CLUSTER_NAME unset)'}: Ray's "
                                    "SubjectAccessReview refuses the nodes' own calls (components/auth-k8s-token "
                                    "ray-user.yaml)"))
        for _, template in pod_templates(docs[index]):
            spec = template["spec"]
            if "automountServiceAccountToken" not in spec and \
                    dig(accounts.get(account), "automountServiceAccountToken") is False:
                problems.append((index, f"{RULE} ServiceAccount {account} has automountServiceAccountToken: false "
                                        "and the pod does not override it: Ray's TokenReview calls have no API "
                                        "token (set automountServiceAccountToken: true on the pod)"))
    return problems


def k8s_token_cross_rules(units, related):
    """(source, index, message): a ClusterRoleBinding, in the unit or a file beside its components,
    lets the pods' ServiceAccount create TokenReviews and SubjectAccessReviews."""
    problems = []
    docs_of = dict(units)
    for source, docs in units:
        found = users(docs)
        if not found:
            continue
        nearby = list(docs) + [d for other in related(source) for d in docs_of.get(other, [])]
        for index, account, _ in found:
            rules = bound_roles(nearby, account, namespaced=False)
            missing = [f"{resource}.{group}" for group, resource in REVIEWS
                       if not any(grants(r, group, resource, "create") for r in rules)]
            if missing:
                problems.append((source, index, f"{RULE} no ClusterRoleBinding in this build or beside its components "
                                                f"lets ServiceAccount {account} create {' and '.join(missing)}: Ray "
                                                "cannot check any caller's token (apply "
                                                "components/auth-k8s-token/token-review.yaml)"))
    return problems
