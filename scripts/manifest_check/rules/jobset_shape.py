"""Rule jobset-shape: the JobSet shape raylaunch reads its identity from (plan/workload_identity.cpp).

Two replicated jobs of one Indexed Job each: `head` (1 pod, ordinal 0) and `workers` (nodes-1
pods, ordinal = JOB_COMPLETION_INDEX + 1). A head Job of its own gives the head a template, a
success policy (the JobSet succeeds when the head's Job does) and a place in the failure rules
of its own. JobSet sets no variables: the pods take JOBSET_NAME from the Downward API, and their
hostnames `<jobset>-<replicatedJob>-<jobIndex>-<podIndex>` resolve under the JobSet's subdomain,
which RAYLAUNCH_SERVICE names.
"""
from ..objects import as_int, containers, dig, env_entry, env_literal, raylaunch_subcommand

RULE = "jobset-shape"
HEAD, WORKERS = "head", "workers"
JOBSET_NAME_FIELDS = ("metadata.annotations['jobset.sigs.k8s.io/jobset-name']",
                      "metadata.labels['jobset.sigs.k8s.io/jobset-name']")


def _job_problems(name, job, pods):
    problems = []
    where = f"spec.replicatedJobs[{name}]"
    if dig(job, "replicas", default=1) != 1:
        problems.append(f"rule {RULE}: {where}.replicas {job.get('replicas')}: one Job per replicated job "
                        "(raylaunch refuses a Job index other than 0)")
    spec = dig(job, "template", "spec", default={}) or {}
    if spec.get("completionMode") != "Indexed":
        problems.append(f"rule {RULE}: {where}.template.spec.completionMode must be Indexed: JOB_COMPLETION_INDEX "
                        "is the pod's index")
    for field in ("completions", "parallelism"):
        if pods is not None and spec.get(field, 1) != pods:
            problems.append(f"rule {RULE}: {where}.template.spec.{field} {spec.get(field, 1)} != {pods}")
    return problems


def jobset_shape_rules(doc):
    if doc.get("kind") != "JobSet":
        return []
    jobs = {dig(j, "name"): j for j in dig(doc, "spec", "replicatedJobs", default=[]) or [] if isinstance(j, dict)}
    if set(jobs) - {HEAD, WORKERS} or HEAD not in jobs:
        return [f"rule {RULE}: spec.replicatedJobs {sorted(str(n) for n in jobs)}: raylaunch's shape is {HEAD} "
                f"(1 pod) and {WORKERS} (nodes-1 pods); see docs/deploy.md#jobset"]
    workers = dig(jobs.get(WORKERS) or {}, "template", "spec", "completions", default=1) if WORKERS in jobs else 0
    nodes = 1 + workers
    problems = _job_problems(HEAD, jobs[HEAD], 1)
    if WORKERS in jobs:
        problems += _job_problems(WORKERS, jobs[WORKERS], None)
        spec = dig(jobs[WORKERS], "template", "spec", default={}) or {}
        if spec.get("parallelism", 1) != workers:
            problems.append(f"rule {RULE}: spec.replicatedJobs[{WORKERS}].template.spec.parallelism "
                            f"{spec.get('parallelism', 1)} != completions {workers}: the head waits for every worker")
    if dig(doc, "spec", "network", "enableDNSHostnames") is False:
        problems.append(f"rule {RULE}: spec.network.enableDNSHostnames false: the head's name must resolve")
    subdomain = dig(doc, "spec", "network", "subdomain") or dig(doc, "metadata", "name")
    if (dig(doc, "spec", "successPolicy", "targetReplicatedJobs") or []) != [HEAD] or \
            dig(doc, "spec", "successPolicy", "operator", default="All") != "All":
        problems.append(f"rule {RULE}: spec.successPolicy must be {{operator: All, targetReplicatedJobs: [{HEAD}]}}: "
                        "the run is done when the head's command is, and the workers never complete by themselves")
    for name, job in jobs.items():
        pod_spec = dig(job, "template", "spec", "template", "spec", default={}) or {}
        for cname, container in containers(pod_spec):
            if raylaunch_subcommand(container.get("command")) != "run":
                continue
            here = f"spec.replicatedJobs[{name}].template.spec.template.spec.{cname}"
            _, value = env_literal(container, "RAYLAUNCH_NODES")
            if value is not None and as_int(value) != nodes:
                problems.append(f'rule {RULE}: {here} RAYLAUNCH_NODES "{value}" != {nodes} (1 head + {workers} workers)')
            if dig(env_entry(container, "JOBSET_NAME"), "valueFrom", "fieldRef", "fieldPath") not in JOBSET_NAME_FIELDS:
                problems.append(f"rule {RULE}: {here} needs env JOBSET_NAME from fieldRef "
                                f"{JOBSET_NAME_FIELDS[0]} (JobSet sets no variables of its own)")
            _, service = env_literal(container, "RAYLAUNCH_SERVICE")
            if service is not None and service != subdomain:
                problems.append(f'rule {RULE}: {here} RAYLAUNCH_SERVICE "{service}" != the JobSet\'s subdomain '
                                f'"{subdomain}"')
    return problems
