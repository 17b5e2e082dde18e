"""raylaunch's own rules for its Kubernetes manifests, used by the checker (../checker.py).

Each rule names what it enforces in RULES; every problem message starts with "rule <name>:".
The rules live in generic.py, capacity.py, placement.py, restart.py and api_*.py (every object),
kubernetes_version.py (every object, against the Kubernetes version checked for), workload.py,
lifecycle.py, node_labels.py, gcs_store.py and k8s_token.py (raylaunch pods; k8s_token.py also across
a build and the files beside its components), unit.py and guards.py (across one build or file), kueue.py and
node_pool_taints.py (across files: a workload and the queues it is admitted through, the node
pools it selects). Facts behind them: ../shared/reference/fabric-and-node-checks.md, anchors.md
and manifest-validation.md.
"""
from .. import env_rules as env_rules_table
from . import api_objects
from . import api_pod
from . import capacity
from . import gcs_store
from . import generic
from . import k8s_token
from . import kubernetes_version
from . import kueue
from . import node_pool_taints
from . import placement
from . import restart
from . import unit
from . import workload
from .jobset_failure import jobset_failure_rules
from .jobset_shape import jobset_shape_rules
from .lws_restart import lws_restart_rules
from .lws_shape import lws_shape_rules
from .start_order import start_order_rules
from ..objects import WORKLOAD_APIS, WORKLOAD_TEMPLATES, dig, pod_templates

RULES = {
    "raylaunch-command": "every container of a workload runs `raylaunch run -- <launch command>`, or a Job's "
                         "`raylaunch redis-cleanup`",
    "raylaunch-probe": "exec probes run `raylaunch probe ...`",
    "no-shell": "no inline shell (`bash -c`, `sh -c`, ...) in any command, args, probe or hook",
    "headless-service": "a headless Service publishes not-ready addresses; the Service a workload names exists and is headless",
    "parallel": "StatefulSets use podManagementPolicy: Parallel",
    "update-strategy": "StatefulSets use updateStrategy OnDelete: a template change must not roll a running cluster",
    "nodes": "RAYLAUNCH_NODES equals the StatefulSet's replicas or the Job's parallelism and completions",
    "service-name": "RAYLAUNCH_SERVICE names the StatefulSet's serviceName or the Job's subdomain",
    "namespace": "POD_NAMESPACE comes from the Downward API (metadata.namespace)",
    "probe-timing": "probe timeoutSeconds >= 2; liveness tolerates >= 300 s of failures; with an exec liveness "
                    "probe, multi-node pods have a startupProbe covering RAYLAUNCH_JOIN_TIMEOUT + 120 s (the httpGet "
                    "/livez needs none: it answers 200 in every start phase)",
    "health-probes": "httpGet probes ask RAYLAUNCH_HEALTH_PORT (> 0, declared as a port): /livez for startup and "
                     "liveness, /readyz for readiness",
    "metrics-port": "a port named metrics is RAYLAUNCH_METRICS_EXPORT_PORT (so it is served); the health port is no Ray port",
    "termination-grace": "terminationGracePeriodSeconds >= RAYLAUNCH_TERM_GRACE + RAYLAUNCH_RAY_STOP_GRACE + 15 s",
    "on-success": "RAYLAUNCH_ON_SUCCESS is stay where containers restart (StatefulSet) and exit in Jobs",
    "termination-message": "raylaunch containers use terminationMessagePolicy: FallbackToLogsOnError",
    "indexed-job": "a multi-node Job is Indexed with a successPolicy on index 0, fails at its first failed index "
                   "(backoffLimitPerIndex: 0 with maxFailedIndexes: 0) and has RAYLAUNCH_JOIN_TIMEOUT >= 1800 s",
    "fabric-check": "RAYLAUNCH_FABRIC_CHECK is off or on, its timeout a duration; on over EFA (the default "
                    "provider), the container requests vpc.amazonaws.com/efa",
    "devices": "RAYLAUNCH_GPUS / RAYLAUNCH_EFA equal the nvidia.com/gpu / vpc.amazonaws.com/efa limits; "
               "huge-page requests equal limits",
    "security-context": "raylaunch pods: seccomp RuntimeDefault, no privilege escalation, not privileged, capabilities "
                        "drop ALL and add only IPC_LOCK, only with EFA; no host namespaces",
    "gpu-pods": "pods asking for GPUs or EFA carry karpenter.sh/do-not-disrupt, tolerate the GPU taint and select a "
                "node pool",
    "node-pool-taints": "a pod whose nodeSelector picks a Karpenter NodePool of the checked files or of the kit "
                        "(manifests/karpenter) tolerates every NoSchedule and NoExecute taint of it",
    "kubernetes-version": "no field an older targeted Kubernetes drops (pod-level resources before 1.34); with "
                          "--kubernetes, what that version's schema rejects fails (restart rules before 1.35), "
                          "without it a note names the version a manifest needs",
    "plaintext-secret": "no credential in plain text: env values and ConfigMap keys named *PASSWORD*, *TOKEN*, "
                        "*SECRET*, *API_KEY*; passwords in URLs or argv; Secrets with data or stringData",
    "gcs-ft": "RAY_REDIS_ADDRESS comes with RAY_external_storage_namespace and REDIS_PASSWORD from a Secret; no two "
              "clusters share a storage namespace; a redis-cleanup Job matches its cluster and is committed suspended; "
              "Redis TLS settings only with rediss://, their files mounted, a CA for the cleanup Job",
    "gcs-store-volume": "RAY_gcs_storage=rocksdb has RAY_gcs_storage_path on a claim of its own per pod (a "
                        "volumeClaimTemplate, ReadWriteOnce, larger than raylaunch's free-space floor; not an emptyDir, "
                        "not read-only, not one claim for several pods), no RAY_REDIS_ADDRESS beside it, a startupProbe "
                        "of at least Ray's 120 s; no path without rocksdb",
    "k8s-token": "RAY_ENABLE_K8S_TOKEN_AUTH=true on every Ray container, with RAY_AUTH_MODE=token, RAY_CLUSTER_NAME "
                 "and RAY_CLUSTER_NAMESPACE, no static RAY_AUTH_TOKEN(_PATH), a projected serviceAccountToken at "
                 "/var/run/secrets/ray.io/serviceaccount/token (no audience: Ray's TokenReview names none), the "
                 "API token mounted, a ServiceAccount that is not `default`, a Role granting it ray:write on "
                 "its rayclusters.ray.io name and a ClusterRoleBinding (in the build or beside its components) "
                 "to create tokenreviews and subjectaccessreviews",
    "kueue": "Kueue's queue-name label is on the workload itself; topology annotations need it, one mode at a time",
    "one-cluster": "each Service, PodDisruptionBudget, NetworkPolicy and PodMonitor selects the pods of exactly one "
                   "workload",
    "disruption-budget": "a deployable raylaunch cluster has a PodDisruptionBudget that keeps every pod (an integer "
                         "minAvailable for a Job, which has no scale subresource)",
    "network-policy": "a deployable raylaunch cluster has a NetworkPolicy, and none opens Ray's ports to every source",
    "legacy-fabric-env": "no value launcher/plan/env_rules.json calls obsolete or harmful (env or mpirun -x); "
                         "its rules that need node facts are skipped",
    "mpirun-np": "an explicit mpirun -np equals Worker replicas x slotsPerWorker",
    "nccl-fabric": "an MPIJob over EFA adds IPC_LOCK to its workers, as the training pods do, and its mpirun exports "
                   "FI_PROVIDER=efa and NCCL_NET=Libfabric, so a broken fabric fails instead of using sockets",
    "capacity": "per pod, GPUs, EFA interfaces, CPU, memory and hugepages-2Mi fit one node of the instance types it "
                "may land on (scripts/manifest_check/instance_types.py): a request no node can satisfy stays Pending",
    "shm": "GPU and raylaunch containers mount /dev/shm from an emptyDir with medium: Memory of at least 1Gi",
    "ephemeral-storage": "raylaunch containers request ephemeral-storage (Ray's /tmp/ray), or they are evicted first",
    "efa-placement": "the pods of a multi-node workload with EFA (an LWS group, a JobSet's Jobs together) are held "
                     "in one zone by a required podAffinity on topology.kubernetes.io/zone (or a zone nodeSelector), "
                     "which the scheduler and Karpenter honour",
    "part-of": "every object and pod template carries app.kubernetes.io/part-of: raylaunch",
    "node-overlay": "a NodeOverlay declares exactly hugepages-2Mi (or domain-prefixed resources), for named instance "
                    "types, and no more than the 5128 pages of 2 MiB the EFA AMIs preallocate",
    "node-pool": "a GPU training NodePool consolidates only empty nodes, never expires nodes, taints nvidia.com/gpu, "
                 "and its EC2NodeClass selects one subnet (EFA does not leave its subnet)",
    "kueue-admission": "a workload with Kueue's queue-name label is admissible through every checked queue file that "
                       "defines its LocalQueue: its resources covered, a flavor matching its instance type, quota "
                       "for all of its pods",
    "pod-failure-policy": "a Job's podFailurePolicy names containers of its pod, with restartPolicy Never and any "
                          "podReplacementPolicy Failed, exit codes ascending, unique and not 0 under In",
    "restart-rules": "container restartPolicyRules only in Jobs, with restartPolicy set, and never restarting raylaunch "
                     "on a code a restart cannot change (0, 64, 75, 78, 126, 127, 130, 143)",
    "node-labels": "RAYLAUNCH_ZONE / RAYLAUNCH_REGION come from the pod's topology labels (Downward API) or equal its "
                   "nodeSelector; RAYLAUNCH_CAPACITY_TYPE is a value raylaunch takes, pinned by the pod's nodeSelector; "
                   "RAYLAUNCH_NODE_LABELS is key=value,... in label syntax",
    "api-server": "the API server's cross-field rules that can be checked offline (listed in rules/api_pod.py "
                  "and rules/api_objects.py): names unique, mounts name volumes, requests <= limits and = limits for GPUs, "
                  "EFA and huge pages, selectors match templates, restart policies, Job fields, label syntax, PDB, "
                  "Service ports, NetworkPolicy endPort, Kueue flavors = coveredResources",
}
# The workload APIs that hand raylaunch its identity (LeaderWorkerSet, JobSet): their own rules.
RULES.update({
    "lws-shape": "a LeaderWorkerSet's RAYLAUNCH_NODES equals leaderWorkerTemplate.size and nothing sets "
                 "RAYLAUNCH_ORDINAL or RAYLAUNCH_HEAD_ADDRESS: the leader is the head",
    "lws-restart": "a multi-pod LeaderWorkerSet recreates its group on a pod restart (RecreateGroupOnPodRestart "
                   "or RecreateGroupAfterStart), as raylaunch's exit codes 69, 75, 76 ask",
    "start-order": "a LeaderWorkerSet creates its workers with the leader (startupPolicy LeaderCreated): "
                   "raylaunch's workers wait for their head themselves",
    "jobset-shape": "a JobSet is replicated jobs head (1 pod) and workers (Indexed, nodes-1 pods), one Job each, "
                    "RAYLAUNCH_NODES their sum, JOBSET_NAME from the Downward API, its success policy the head's",
    "jobset-failure": "a JobSet fails at once on 64 and 78 (each Job's podFailurePolicy FailJob, then FailJobSet "
                      "on PodFailurePolicy) and restarts whole on the retryable rest (69, 75, 76), maxRestarts >= 1",
})
# Kinds whose pods are not raylaunch pods; only the rules for every object apply to them.
RAYLAUNCH_EXEMPT = {
    "MPIJob": "NCCL-tests fabric check: the MPI Operator needs mpirun in the launcher and sshd in the workers",
}
GENERIC_RULES = ("no-shell", "legacy-fabric-env", "plaintext-secret", "gpu-pods", "node-pool-taints", "mpirun-np",
                 "nccl-fabric", "capacity", "shm", "efa-placement", "part-of", "api-server", "pod-failure-policy",
                 "restart-rules", "kubernetes-version")

_env_rules = None


def load_env_rules(path=env_rules_table.DEFAULT_PATH):
    """Reads the shared env table once; ValueError when it is missing or malformed."""
    global _env_rules  # pylint: disable=global-statement
    _env_rules = env_rules_table.load(path)


def object_rules(doc):
    """Rules that need only this object."""
    if not isinstance(doc, dict):
        return []
    if _env_rules is None:
        load_env_rules()
    kind = doc.get("kind")
    problems = (generic.shell_rules(doc) + generic.legacy_env_rules(doc, _env_rules)
                + generic.plaintext_secret_rules(doc) + generic.gpu_pod_rules(doc)
                + capacity.capacity_rules(doc) + placement.shm_rules(doc)
                + placement.efa_placement_rules(doc)
                + api_objects.object_problems(doc) + restart.object_restart_rules(doc))
    claims = [dig(c, "metadata", "name") for c in dig(doc, "spec", "volumeClaimTemplates") or []] \
        if kind == "StatefulSet" else []
    for where, template in pod_templates(doc):
        problems += api_pod.pod_template_problems(kind, where, template["spec"], claims)
    if kind == "NodeOverlay":
        problems += capacity.node_overlay_rules(doc)
    if kind == "Service" and dig(doc, "spec", "clusterIP") == "None" \
            and dig(doc, "spec", "publishNotReadyAddresses") is not True:
        problems.append("rule headless-service: spec.publishNotReadyAddresses must be true, or workers cannot "
                        "resolve the head before it is Ready")
    if kind in WORKLOAD_TEMPLATES:
        for where, template in pod_templates(doc):
            problems += workload.workload_rules(doc, where, template)
        problems += placement.ephemeral_storage_rules(doc)
        problems += gcs_store.gcs_store_rules(doc)
        problems += k8s_token.k8s_token_rules(doc)
    if kind == "MPIJob":
        problems += generic.mpirun_rules(doc) + generic.mpijob_fabric_rules(doc)
    if kind in WORKLOAD_APIS:  # every workload rule for each pod template, then the API's own
        for where, template in pod_templates(doc):
            problems += workload.workload_rules(doc, where, template)
        problems += placement.ephemeral_storage_rules(doc)
        problems += (lws_shape_rules(doc) + lws_restart_rules(doc) + start_order_rules(doc)
                     + jobset_shape_rules(doc) + jobset_failure_rules(doc))
    return problems


def unit_rules(docs):
    """Rules on a build or file as a whole (not on the raw files a build reads, which get their
    labels from the kustomization): (index of the document, message)."""
    docs = [d if isinstance(d, dict) else {} for d in docs]
    labels = [(i, m) for i, d in enumerate(docs) for m in placement.part_of_rules(d)]
    return unit.unit_rules(docs) + capacity.node_pool_rules(docs) + labels + k8s_token.k8s_token_unit_rules(docs)


def version_rules(doc, target):
    """Rules that depend on the Kubernetes version checked for: (failures, notes)."""
    if not isinstance(doc, dict):
        return [], []
    return kubernetes_version.kubernetes_version_rules(doc, target)


def cross_unit_rules(units, related, extra_pools):
    """Rules across what was checked: units are (source, docs); related(source) names the units a
    unit depends on (a build: the loose files next to it and to its components); extra_pools are
    (source, NodePool) of the kit's node pools, used where no checked unit has a pool of that name.
    Returns (source, index, message)."""
    units = [(source, [d if isinstance(d, dict) else {} for d in docs]) for source, docs in units]
    pools = node_pool_taints.pools_of(units)
    names = {dig(pool, "metadata", "name") for _, pool in pools}
    pools += [(source, pool) for source, pool in extra_pools if dig(pool, "metadata", "name") not in names]
    return (kueue.kueue_rules(units, related) + node_pool_taints.node_pool_taint_rules(units, pools)
            + k8s_token.k8s_token_cross_rules(units, related))
