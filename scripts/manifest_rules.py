"""raylaunch's own rules for its Kubernetes manifests, used by validate_manifests.py.

Each rule names what it enforces in RULES; every problem message starts with "rule <name>:".
The rules live in rules_generic.py (every object), rules_workload.py and rules_lifecycle.py
(raylaunch pods), rules_unit.py and rules_guards.py (across one build or file). Facts behind them:
../shared/reference/fabric-and-node-checks.md, anchors.md and manifest-validation.md.
"""
import env_rules as env_rules_table
import rules_generic
import rules_unit
import rules_workload
from manifest_common import WORKLOAD_TEMPLATES, dig, pod_templates

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
    "probe-timing": "probe timeoutSeconds >= 2; liveness tolerates >= 300 s of failures; multi-node pods have a "
                    "startupProbe covering RAYLAUNCH_JOIN_TIMEOUT + 120 s",
    "health-probes": "httpGet probes ask RAYLAUNCH_HEALTH_PORT (> 0, declared as a port): /livez for startup and "
                     "liveness, /readyz for readiness",
    "metrics-port": "a port named metrics is RAYLAUNCH_METRICS_EXPORT_PORT (so it is served); the health port is no Ray port",
    "termination-grace": "terminationGracePeriodSeconds >= RAYLAUNCH_TERM_GRACE + RAYLAUNCH_RAY_STOP_GRACE + 15 s",
    "on-success": "RAYLAUNCH_ON_SUCCESS is stay where containers restart (StatefulSet) and exit in Jobs",
    "termination-message": "raylaunch containers use terminationMessagePolicy: FallbackToLogsOnError",
    "indexed-job": "a multi-node Job is Indexed with a successPolicy on index 0 and RAYLAUNCH_JOIN_TIMEOUT >= 1800 s",
    "devices": "RAYLAUNCH_GPUS / RAYLAUNCH_EFA equal the nvidia.com/gpu / vpc.amazonaws.com/efa limits; "
               "huge-page requests equal limits",
    "security-context": "raylaunch pods: seccomp RuntimeDefault, no privilege escalation, not privileged, capabilities "
                        "drop ALL and add only IPC_LOCK, only with EFA; no host namespaces",
    "gpu-pods": "pods asking for GPUs or EFA carry karpenter.sh/do-not-disrupt, tolerate the GPU taint and select a "
                "node pool",
    "plaintext-secret": "no credential in plain text: env values and ConfigMap keys named *PASSWORD*, *TOKEN*, "
                        "*SECRET*, *API_KEY*; passwords in URLs or argv; Secrets with data or stringData",
    "gcs-ft": "RAY_REDIS_ADDRESS comes with RAY_external_storage_namespace and REDIS_PASSWORD from a Secret; no two "
              "clusters share a storage namespace; a redis-cleanup Job matches its cluster and is committed suspended",
    "kueue": "Kueue's queue-name label is on the workload itself; topology annotations need it, one mode at a time",
    "one-cluster": "each Service, PodDisruptionBudget and NetworkPolicy selects the pods of exactly one workload",
    "disruption-budget": "a deployable raylaunch cluster has a PodDisruptionBudget that keeps every pod (an integer "
                         "minAvailable for a Job, which has no scale subresource)",
    "network-policy": "a deployable raylaunch cluster has a NetworkPolicy, and none opens Ray's ports to every source",
    "legacy-fabric-env": "no value launcher/plan/env_rules.json calls obsolete or harmful (env or mpirun -x); "
                         "its rules that need node facts are skipped",
    "mpirun-np": "an explicit mpirun -np equals Worker replicas x slotsPerWorker",
}
# Kinds whose pods are not raylaunch pods; only the rules for every object apply to them.
RAYLAUNCH_EXEMPT = {
    "MPIJob": "NCCL-tests fabric check: the MPI Operator needs mpirun in the launcher and sshd in the workers",
}
GENERIC_RULES = ("no-shell", "legacy-fabric-env", "plaintext-secret", "gpu-pods", "mpirun-np")

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
    problems = (rules_generic.shell_rules(doc) + rules_generic.legacy_env_rules(doc, _env_rules)
                + rules_generic.plaintext_secret_rules(doc) + rules_generic.gpu_pod_rules(doc))
    if kind == "Service" and dig(doc, "spec", "clusterIP") == "None" \
            and dig(doc, "spec", "publishNotReadyAddresses") is not True:
        problems.append("rule headless-service: spec.publishNotReadyAddresses must be true, or workers cannot "
                        "resolve the head before it is Ready")
    if kind in WORKLOAD_TEMPLATES:
        for where, template in pod_templates(doc):
            problems += rules_workload.workload_rules(doc, where, template)
    if kind == "MPIJob":
        problems += rules_generic.mpirun_rules(doc)
    return problems


def unit_rules(docs):
    """Rules across the objects of one build or file: (index of the document, message)."""
    return rules_unit.unit_rules(docs)
