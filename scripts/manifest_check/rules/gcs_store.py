"""Rule gcs-store-volume: the head's GCS store (RAY_gcs_storage=rocksdb, Ray 2.60) where it
outlives the head's container and pod, as raylaunch's preflight will find it before `ray start`
(docs/run.md#the-store-on-the-head---gcs-storage-rocksdb).

Ray's GCS keeps every table in RocksDB under RAY_gcs_storage_path. What the manifest decides:
the volume under that path (a claim: an emptyDir or the container's own file system goes with
the pod or the container, and a memory-backed one is refused by raylaunch with 78), one writer
per volume (ReadWriteOnce; one claim by name for several pods leaves every pod on another node
ContainerCreating on a Multi-Attach error), a size above raylaunch's free-space floor, one store
(not Redis as well: 64), and a startupProbe that lets Ray recover a large store (its own budget
with the store on is 120 s).
"""
import json

from .. import quantity
from ..objects import containers, dig, env_entry, env_literal, int_field, pod_templates, raylaunch_subcommand

RULE = "rule gcs-store-volume:"
STORAGE = "RAY_gcs_storage"
PATH = "RAY_gcs_storage_path"
MIN_FREE = "RAYLAUNCH_GCS_STORAGE_MIN_FREE"
DEFAULT_MIN_FREE = "256Mi"  # launcher/config/settings.cpp, gcs_storage_min_free
# A fresh store takes 26 MB, and a file system keeps some of its blocks for itself (ext4's
# journal, the blocks reserved for root that f_bavail leaves out): a claim of exactly the floor
# would be refused.
HEADROOM = 64 * quantity.MI
RAY_START_BUDGET_S = 120  # node.py: the GCS wait with the store on, unless RAY_gcs_server_port_wait_time_s
SINGLE_WRITER = {"ReadWriteOnce", "ReadWriteOncePod"}


def pod_count(doc):
    spec = doc.get("spec") or {}
    key = "parallelism" if doc.get("kind") == "Job" else "replicas"
    count = int_field(spec, key, 1)
    return 1 if doc.get("kind") == "Pod" else count


def covering_mount(container, path):
    """The volumeMount whose mountPath holds `path` (the deepest), or None."""
    best = None
    for mount in container.get("volumeMounts") or []:
        if not isinstance(mount, dict) or not isinstance(mount.get("mountPath"), str):
            continue
        root = mount["mountPath"].rstrip("/") or "/"
        if path == root or path.startswith(root.rstrip("/") + "/"):
            if best is None or len(root) > len(best["mountPath"].rstrip("/")):
                best = mount
    return best


def claim_problems(here, claim, container):
    """A volumeClaimTemplate's access modes and size."""
    spec = claim.get("spec") or {}
    name = dig(claim, "metadata", "name")
    problems = []
    modes = spec.get("accessModes") or []
    if not modes or not set(modes) <= SINGLE_WRITER:
        problems.append(f"{RULE} {here}: volumeClaimTemplate {name} has accessModes {json.dumps(modes)}: the store "
                        "has one writer, the head, on one node (ReadWriteOnce); RocksDB's locks and fsync are not "
                        "what a shared file system guarantees")
    size = quantity.parse(dig(spec, "resources", "requests", "storage"))
    present, floor_text = env_literal(container, MIN_FREE)
    floor = quantity.parse(floor_text if present and floor_text is not None else DEFAULT_MIN_FREE)
    if size is None:
        problems.append(f"{RULE} {here}: volumeClaimTemplate {name} requests no storage size")
    elif floor is not None and size < floor + HEADROOM:
        problems.append(f"{RULE} {here}: volumeClaimTemplate {name} requests {quantity.show(size, 'bytes')}, not "
                        f"more than raylaunch's free-space floor {quantity.show(floor, 'bytes')} ({MIN_FREE}) "
                        "plus the store and the file system's own share: the head is refused with 78 (1Gi fits)")
    return problems


def volume_problems(here, doc, pod_spec, container, path):
    """Where `path` lives: a claim that stays when the container and the pod go, one per pod."""
    mount = covering_mount(container, path)
    if mount is None:
        return [f"{RULE} {here}: {PATH}={path} is under no volumeMount: the store would be on the container's "
                "own file system, gone when it restarts (raylaunch refuses it with 78); mount a claim there "
                "(components/gcs-ft-rocksdb)"]
    problems = []
    if mount.get("readOnly") is True:
        problems.append(f"{RULE} {here}: {PATH}={path} is on the read-only mount {mount.get('name')}: Ray's GCS "
                        "dies at once on it (raylaunch refuses it with 78)")
    name = mount.get("name")
    claims = {dig(c, "metadata", "name"): c for c in dig(doc, "spec", "volumeClaimTemplates") or []
              if isinstance(c, dict)} if doc.get("kind") == "StatefulSet" else {}
    if name in claims:
        return problems + claim_problems(here, claims[name], container)
    volume = next((v for v in pod_spec.get("volumes") or [] if isinstance(v, dict) and v.get("name") == name), None)
    if volume is None:
        return problems  # rule api-server names the missing volume
    if "emptyDir" in volume:
        memory = dig(volume, "emptyDir", "medium") == "Memory"
        problems.append(f"{RULE} {here}: {PATH}={path} is on the emptyDir {name}"
                        + (" of medium Memory: tmpfs, counted against the pod's memory and gone with the pod "
                           "(raylaunch refuses it with 78)" if memory else
                           ": deleted with the pod, so a head rescheduled after a node loss starts a new cluster")
                        + "; use a volumeClaimTemplate (components/gcs-ft-rocksdb)")
    elif "persistentVolumeClaim" in volume:
        count = pod_count(doc)
        if count is None or count > 1:
            claim = dig(volume, "persistentVolumeClaim", "claimName")
            problems.append(f"{RULE} {here}: {PATH}={path} is on the claim {claim}, which every pod of "
                            f"{doc.get('kind')}/{dig(doc, 'metadata', 'name')} mounts: a ReadWriteOnce volume "
                            "attaches to one node and the pods on others stay ContainerCreating (Multi-Attach); "
                            "give each pod its own claim with a volumeClaimTemplate (components/gcs-ft-rocksdb)")
    else:
        kind = next((k for k in volume if k != "name"), "?")
        problems.append(f"{RULE} {here}: {PATH}={path} is on the {kind} volume {name}, not a persistent volume "
                        "claim: the store must outlive the pod; use a volumeClaimTemplate")
    return problems


def startup_problems(here, container):
    """The startupProbe's window against Ray's start-up budget with the store on."""
    probe = container.get("startupProbe")
    if not isinstance(probe, dict):
        return []
    period, failures = int_field(probe, "periodSeconds", 10), int_field(probe, "failureThreshold", 3)
    present, wait = env_literal(container, "RAY_gcs_server_port_wait_time_s")
    budget = RAY_START_BUDGET_S
    if present and wait is not None and wait.isdigit():
        budget = max(budget, int(wait))
    if period is None or failures is None or period * failures >= budget:
        return []
    return [f"{RULE} {here}: the startupProbe gives up after {period * failures} s, and Ray gives the GCS "
            f"{budget} s to recover its store (RocksDB's recovery grows with the cluster's state): a restarted "
            "head would be killed while it recovers"]


def container_problems(here, doc, pod_spec, container):
    present, storage = env_literal(container, STORAGE)
    path_present, path = env_literal(container, PATH)
    if present and storage is None:
        return []  # from a ConfigMap or the like: not ours to read
    if storage != "rocksdb":
        if path_present:
            return [f"{RULE} {here}: {PATH} is set but {STORAGE} is {storage or 'unset (memory)'}: Ray ignores the "
                    f"path and raylaunch refuses it with 64 (set {STORAGE}=rocksdb, or drop the path)"]
        return []
    problems = []
    if env_entry(container, "RAY_REDIS_ADDRESS") is not None:
        problems.append(f"{RULE} {here}: {STORAGE}=rocksdb and RAY_REDIS_ADDRESS (components/gcs-ft) are both set: "
                        "the head's GCS has one store, and raylaunch refuses both with 64; use gcs-ft or "
                        "gcs-ft-rocksdb, not both")
    if not path_present:
        problems.append(f"{RULE} {here}: {STORAGE}=rocksdb without {PATH}: Ray's GCS aborts at start (raylaunch "
                        "refuses it with 64)")
    elif path is not None:
        problems += volume_problems(here, doc, pod_spec, container, path)
    return problems + startup_problems(here, container)


def gcs_store_rules(doc):
    """Every problem of the workload's raylaunch containers that use the store."""
    problems = []
    for where, template in pod_templates(doc):
        for cname, container in containers(template["spec"]):
            if raylaunch_subcommand(container.get("command")) == "run":
                problems += container_problems(f"{where}.{cname}", doc, template["spec"], container)
    return problems
