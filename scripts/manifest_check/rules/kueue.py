"""Rule `kueue-admission`, across files: a workload labelled kueue.x-k8s.io/queue-name against the
Kueue objects an admin applies: every related file that defines that LocalQueue (for a build,
the loose files next to its kustomization and next to the components it uses, such as
components/kueue/queues*.yaml; for a plain file, the files beside it). Kueue admits all of a workload's pods at once or none, and never one that:
- requests a resource its ClusterQueue does not cover (Kueue's flavor assignment:
  "resource ... unavailable in ClusterQueue"),
- fits no flavor: a flavor's nodeLabels must agree with the pods' nodeSelector (Kueue checks
  the pod's node selection against each flavor's labels),
- needs more than a flavor's nominalQuota, with no cohort to borrow from.
A workload that asks for topology-aware placement (kueue.x-k8s.io/podset-*-topology) is checked
only against queue files whose flavors have a topologyName.
"""
from .. import quantity
from ..objects import dig, pod_templates
from ..pod_resources import pod_requests
from .placement import pods_per_template

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
TOPOLOGY = ("kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology")
UNITS = {"cpu": "cores", "memory": "bytes", "ephemeral-storage": "bytes", "hugepages-2Mi": "bytes"}


class QueueFile:
    """The Kueue objects of one checked unit."""

    def __init__(self, source, docs):
        self.source = source
        self.local = {dig(d, "metadata", "name"): d for d in docs if d.get("kind") == "LocalQueue"}
        self.cluster = {dig(d, "metadata", "name"): d for d in docs if d.get("kind") == "ClusterQueue"}
        self.flavors = {dig(d, "metadata", "name"): d for d in docs if d.get("kind") == "ResourceFlavor"}

    def topology_aware(self):
        return any(dig(f, "spec", "topologyName") for f in self.flavors.values())


def podsets(doc):
    """(node selector, requests per pod, pod count, topology) for each pod template."""
    counts = pods_per_template(doc)
    for where, template in pod_templates(doc):
        annotations = dig(template, "metadata", "annotations") or {}
        yield (template["spec"].get("nodeSelector") or {}, pod_requests(template["spec"]), counts.get(where) or 1,
               any(key in annotations for key in TOPOLOGY))


def fits_labels(flavor, selector):
    labels = dig(flavor, "spec", "nodeLabels") or {}
    return all(selector[key] == value for key, value in labels.items() if key in selector)


def describe_flavors(names, queue_file):
    shown = []
    for name in names:
        labels = dig(queue_file.flavors.get(name), "spec", "nodeLabels") or {}
        shown.append(f"{name} ({', '.join(f'{k}={v}' for k, v in labels.items()) or 'no node labels'})")
    return "; ".join(shown)


def check_pair(workload, queue, queue_file):
    """Problems of one workload with the ClusterQueue its LocalQueue points to in one file."""
    cluster_name = dig(queue, "spec", "clusterQueue")
    cluster = queue_file.cluster.get(cluster_name)
    where = f"(with {queue_file.source})"
    if cluster is None:
        return [f"rule kueue-admission: LocalQueue {dig(queue, 'metadata', 'name')} points to ClusterQueue "
                f"{cluster_name}, which {queue_file.source} does not define {where}"]
    spec = cluster.get("spec") or {}
    borrows = "cohort" in spec or "cohortName" in spec
    groups = [g for g in spec.get("resourceGroups") or [] if isinstance(g, dict)]
    covered = {r for g in groups for r in g.get("coveredResources") or []}
    problems, totals = [], {}
    for selector, requests, count, _ in podsets(workload):
        for name, amount in requests.items():
            if amount > 0:
                totals[name] = totals.get(name, 0) + amount * count
        for group in groups:
            if not set(group.get("coveredResources") or []) & {n for n, a in requests.items() if a > 0}:
                continue
            names = [f.get("name") for f in group.get("flavors") or [] if isinstance(f, dict)]
            if not any(fits_labels(queue_file.flavors.get(n) or {}, selector) for n in names):
                shown = ", ".join(f"{k}={v}" for k, v in selector.items())
                problems.append(f"rule kueue-admission: no flavor of ClusterQueue {cluster_name} matches the pods' "
                                f"nodeSelector ({shown}): flavors {describe_flavors(names, queue_file)}; Kueue never "
                                f"admits the workload (add a ResourceFlavor for its instance type) {where}")
    for name in sorted(n for n in totals if n not in covered):
        problems.append(f"rule kueue-admission: the pods request {name}, which ClusterQueue {cluster_name} does not "
                        f"cover (coveredResources {sorted(covered)}): Kueue never admits the workload {where}")
    if borrows:
        return problems
    selectors = [selector for selector, *_ in podsets(workload)]
    for group in groups:
        for flavor in group.get("flavors") or []:
            if not all(fits_labels(queue_file.flavors.get(flavor.get("name")) or {}, s) for s in selectors):
                continue
            short = []
            for resource in flavor.get("resources") or []:
                name, quota = resource.get("name"), quantity.parse(resource.get("nominalQuota"))
                if name in totals and quota is not None and totals[name] > quota:
                    unit = UNITS.get(name, "devices")
                    short.append(f"{name} {quantity.show(totals[name], unit)} > {resource.get('nominalQuota')}")
            if short:
                problems.append(f"rule kueue-admission: the workload's pods together need more than flavor "
                                f"{flavor.get('name')}'s nominalQuota in ClusterQueue {cluster_name} ({'; '.join(short)}), "
                                f"and it has no cohort to borrow from: Kueue admits all pods or none, so never {where}")
    return problems


def kueue_rules(units, related):
    """units: (source, docs) of every unit checked whole; related(source): the sources whose queue
    files apply to that unit. Returns (source, index, message)."""
    all_queue_files = [QueueFile(source, docs) for source, docs in units]
    all_queue_files = [q for q in all_queue_files if q.local]
    problems = []
    for source, docs in units:
        sources = related(source)
        queue_files = [q for q in all_queue_files if q.source in sources]
        for index, doc in enumerate(docs):
            label = (dig(doc, "metadata", "labels") or {}).get(QUEUE_LABEL)
            if label is None or not list(pod_templates(doc)):
                continue
            topology = any(t for *_, t in podsets(doc))
            for queue_file in queue_files:
                queue = queue_file.local.get(label)
                if queue is None or (topology and not queue_file.topology_aware()):
                    continue
                problems += [(source, index, m) for m in check_pair(doc, queue, queue_file)]
    return problems
