"""Rules on where and with what a GPU pod runs: one zone for EFA (`efa-placement`), a
memory-backed /dev/shm (`shm`), an ephemeral-storage request (`ephemeral-storage`), and the
kit's label on every object (`part-of`).

Facts: EFA's OS-bypass traffic does not leave its subnet (AWS EFA user guide, "EFA limitations"),
so the pods of one run must share a zone (and the node pool a subnet: rule node-pool). A
*preferred* affinity on topology.k8s.aws/network-node-layer-3 does not do it: Karpenter does not
know that label before it launches a node. A *required* podAffinity on topology.kubernetes.io/zone
that selects the pods themselves does: the scheduler places every later pod in the first one's
zone, and Karpenter launches them there (kubernetes-sigs/karpenter
pkg/controllers/provisioning/scheduling/topology_test.go, "should respect self pod affinity (zone)").
"""
from .. import quantity
from ..objects import containers, dig, pod_templates, raylaunch_subcommand, selects
from ..pod_resources import container_requests

ZONE_KEYS = ("topology.kubernetes.io/zone", "topology.k8s.aws/zone-id")
PART_OF = ("app.kubernetes.io/part-of", "raylaunch")
GPU, EFA = "nvidia.com/gpu", "vpc.amazonaws.com/efa"
MIN_SHM = quantity.GI  # NCCL and the DataLoader need more than the 64 MiB default (fabric-and-node-checks.md 6)


def pods_per_template(doc):
    """How many pods that talk to each other (one Ray cluster, one MPI job) each template is
    part of (None when unknown). An LWS group is one cluster: its size, leader and workers
    together, whatever the number of groups. A JobSet is one cluster: the pods of every
    replicated Job (the head's Job of one pod talks to the workers' Job)."""
    kind, spec = doc.get("kind"), doc.get("spec") or {}
    if kind == "MPIJob":
        return {f"spec.mpiReplicaSpecs.{role}.template.spec": (replica or {}).get("replicas", 1)
                for role, replica in (spec.get("mpiReplicaSpecs") or {}).items()}
    if kind == "LeaderWorkerSet":
        size = dig(spec, "leaderWorkerTemplate", "size")
        size = 1 if size is None else size
        return {where: size for where, _ in pod_templates(doc)}
    if kind == "JobSet":
        total = 0
        for rjob in spec.get("replicatedJobs") or []:
            replicas = dig(rjob, "replicas")
            parallelism = dig(rjob, "template", "spec", "parallelism")
            replicas, parallelism = (1 if v is None else v for v in (replicas, parallelism))
            if not isinstance(replicas, int) or not isinstance(parallelism, int):
                return {}
            total += replicas * parallelism
        return {where: total for where, _ in pod_templates(doc)}
    count = spec.get("parallelism", 1) if kind == "Job" else spec.get("replicas", 1)
    return {where: count for where, _ in pod_templates(doc)}


def one_zone(template):
    spec, labels = template["spec"], dig(template, "metadata", "labels") or {}
    if any(key in (spec.get("nodeSelector") or {}) for key in ZONE_KEYS):
        return True
    terms = dig(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                "nodeSelectorTerms") or []
    if terms and all(any(e.get("key") in ZONE_KEYS and e.get("operator") == "In" and len(e.get("values") or []) == 1
                         for e in (t or {}).get("matchExpressions") or []) for t in terms):
        return True
    for term in dig(spec, "affinity", "podAffinity", "requiredDuringSchedulingIgnoredDuringExecution") or []:
        if isinstance(term, dict) and term.get("topologyKey") in ZONE_KEYS \
                and selects(term.get("labelSelector") or {}, labels, set()):
            return True
    return False


def efa_placement_rules(doc):
    problems = []
    counts = pods_per_template(doc)
    for where, template in pod_templates(doc):
        efa = any((container_requests(c).get(EFA) or 0) > 0 for _, c in containers(template["spec"]))
        count = counts.get(where)
        if efa and isinstance(count, int) and count > 1 and not one_zone(template):
            problems.append(f"rule efa-placement: {where} runs {count} pods with EFA devices, but nothing keeps them "
                            "in one zone: EFA's OS-bypass traffic does not leave its subnet. Add a required podAffinity "
                            "on topology.kubernetes.io/zone that selects these pods (the scheduler and Karpenter "
                            "honour it; a preferred one, or one on topology.k8s.aws/network-node-layer-*, Karpenter "
                            "ignores when it launches nodes)")
    return problems


def shm_rules(doc):
    problems = []
    for where, template in pod_templates(doc):
        spec = template["spec"]
        volumes = {v.get("name"): v for v in spec.get("volumes") or [] if isinstance(v, dict)}
        for cname, container in containers(spec):
            gpus = (container_requests(container).get(GPU) or 0) > 0
            if not gpus and raylaunch_subcommand(container.get("command")) != "run":
                continue
            here = f"{where}.{cname}"
            mount = next((m for m in container.get("volumeMounts") or []
                          if isinstance(m, dict) and m.get("mountPath") == "/dev/shm"), None)
            if mount is None:
                problems.append(f"rule shm: {here} does not mount /dev/shm: the container runtime's default is 64 MiB, "
                                "too small for NCCL, the DataLoader and Ray's object store (Bus error); mount an "
                                "emptyDir with medium: Memory there")
                continue
            volume = volumes.get(mount.get("name")) or {}
            medium = dig(volume, "emptyDir", "medium")
            if "emptyDir" not in volume or medium != "Memory":
                problems.append(f"rule shm: {here} mounts /dev/shm from volume {mount.get('name')}, which is not an "
                                "emptyDir with medium: Memory: on disk it is no shared memory (NCCL's transport and "
                                "Ray's object store run at disk speed)")
                continue
            size = quantity.parse(dig(volume, "emptyDir", "sizeLimit"))
            if size is not None and size < MIN_SHM:
                problems.append(f"rule shm: {here} /dev/shm sizeLimit {volume['emptyDir']['sizeLimit']} is below 1Gi, "
                                "less than NCCL needs")
    return problems


def ephemeral_storage_rules(doc):
    problems = []
    for where, template in pod_templates(doc):
        for cname, container in containers(template["spec"]):
            if raylaunch_subcommand(container.get("command")) != "run":
                continue
            if "ephemeral-storage" not in (dig(container, "resources", "requests") or {}):
                problems.append(f"rule ephemeral-storage: {where}.{cname} requests no ephemeral-storage: Ray writes its "
                                "logs and spilled objects under /tmp/ray, all of it above a request of 0, so under disk "
                                "pressure the kubelet evicts this pod first")
    return problems


def part_of_rules(doc):
    key, value = PART_OF
    problems = []
    if (dig(doc, "metadata", "labels") or {}).get(key) != value:
        problems.append(f"rule part-of: metadata.labels lack {key}: {value} (kubectl get -l and the metrics scrape "
                        "find the kit's objects by it)")
    for where, template in pod_templates(doc):
        if doc.get("kind") != "Pod" and (dig(template, "metadata", "labels") or {}).get(key) != value:
            problems.append(f"rule part-of: {where.removesuffix('.spec')}.metadata.labels lack {key}: {value} (the "
                            "pods' own label, which the Prometheus scrape config selects)")
    return problems
