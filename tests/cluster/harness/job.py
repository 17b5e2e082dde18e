"""The Job controller for Indexed Jobs, as far as the training Jobs need it.

Written from the Kubernetes documentation ("Jobs": completion mode, pod failure policy,
backoff limit per index, success policy; "Pod Lifecycle"): pods `<job>-<index>-<5 random
characters>`, hostname `<job>-<index>` and the template's subdomain, the completion-index
annotation and label and JOB_COMPLETION_INDEX; at most `parallelism` indexes run at once;
an index succeeds with its first pod that succeeds; a failed pod is matched against
podFailurePolicy (FailJob, FailIndex, Ignore, Count), then counted against
backoffLimitPerIndex (the index fails past it) or backoffLimit (the Job fails past it), and
its index gets a new pod after the controller's back-off (10 s, doubling, up to 6 min);
successPolicy (succeededIndexes/succeededCount) or all completions succeed the Job; when the
Job succeeds or fails the remaining pods are terminated with their grace period, and the
Job's final condition (Complete/Failed) is set once none is left. activeDeadlineSeconds
fails the Job.
"""
import copy
import random
import uuid

from .containerspec import JOB_INDEX_ANNOTATION

SUFFIX_CHARS = "bcdfghjklmnpqrstvwxz2456789"  # what generateName draws from
POD_BACKOFF_INITIAL, POD_BACKOFF_CAP = 10.0, 360.0


def parse_indexes(text):
    """`"0,2-4"` -> {0, 2, 3, 4}."""
    out = set()
    for part in str(text).split(","):
        part = part.strip()
        if "-" in part:
            lo, hi = part.split("-")
            out |= set(range(int(lo), int(hi) + 1))
        elif part:
            out.add(int(part))
    return out


def format_indexes(indexes):
    return ",".join(str(i) for i in sorted(indexes))


class IndexedJobController:
    kind = "Job"

    def __init__(self, cluster, job):
        self.c = cluster
        self.job = job
        spec = job["spec"]
        if spec.get("completionMode") != "Indexed":
            raise ValueError("the harness plays the Job controller for Indexed Jobs only")
        self.name = job["metadata"]["name"]
        self.uid = str(uuid.uuid4())
        self.completions = int(spec.get("completions", 1))
        self.parallelism = int(spec.get("parallelism", 1))
        self.backoff_limit = int(spec.get("backoffLimit", 6))
        self.per_index = spec.get("backoffLimitPerIndex")
        self.max_failed = spec.get("maxFailedIndexes")
        self.success_rules = (spec.get("successPolicy") or {}).get("rules", [])
        self.failure_rules = (spec.get("podFailurePolicy") or {}).get("rules", [])
        self.deadline = spec.get("activeDeadlineSeconds")
        self.succeeded = set()
        self.failed_indexes = set()
        self.failures = {}  # index -> failed pods counted
        self.total_failures = 0
        self.active = {}  # index -> Pod
        self.pods = []  # every pod this Job created, in order
        self.not_before = {}  # index -> loop time of its next pod (back-off)
        self.held = set()
        self.conditions = []  # (t, type, reason)
        self.finishing = None  # "Complete" | "Failed" once decided
        self.result = None  # the final condition, once no pod is left

    def start(self):
        if self.deadline is not None:
            self.c.loop.later(self.c.scaled(float(self.deadline)), self._deadline)

    def new_pod(self, index):
        tmpl = copy.deepcopy(self.job["spec"]["template"])
        meta = tmpl.setdefault("metadata", {})
        suffix = "".join(random.choice(SUFFIX_CHARS) for _ in range(5))
        meta.setdefault("labels", {}).update({
            "batch.kubernetes.io/controller-uid": self.uid, "controller-uid": self.uid,
            "batch.kubernetes.io/job-name": self.name, "job-name": self.name,
            JOB_INDEX_ANNOTATION: str(index)})
        meta.setdefault("annotations", {})[JOB_INDEX_ANNOTATION] = str(index)
        meta.update({"name": f"{self.name}-{index}-{suffix}", "namespace": self.c.namespace,
                     "uid": str(uuid.uuid4()), "ownerReferences": [{"kind": "Job", "name": self.name}]})
        spec = tmpl["spec"]
        spec.setdefault("hostname", f"{self.name}-{index}")
        for c in spec["containers"]:
            env = c.setdefault("env", [])
            if not any(e["name"] == "JOB_COMPLETION_INDEX" for e in env):
                env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {
                    "fieldRef": {"fieldPath": f"metadata.annotations['{JOB_INDEX_ANNOTATION}']"}}})
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}

    def reconcile(self):
        if self.finishing or self.c.shutting_down:
            return
        now = self.c.loop.now()
        for index in range(self.completions):
            if len(self.active) >= self.parallelism:
                return
            if (index in self.active or index in self.succeeded or index in self.failed_indexes
                    or index in self.held):
                continue
            wait = self.not_before.get(index, 0) - now
            if wait > 0:
                self.c.loop.later(wait, self.reconcile)
                continue
            pod = self.c.create_pod(self.new_pod(index), self)
            self.active[index] = pod
            self.pods.append(pod)

    def hold(self, index):
        self.held.add(index)

    def release(self, index):
        self.held.discard(index)
        self.reconcile()

    def _index(self, pod):
        return int(pod.annotations[JOB_INDEX_ANNOTATION])

    # --- from the kubelet
    def pods_changed(self):
        pass

    def container_restarted(self, pod, run):
        # restartPolicy OnFailure: restarts in place count against backoffLimit.
        if run.exit_code and self.per_index is None and not self.finishing:
            self.total_failures += 1
            if self.total_failures > self.backoff_limit:
                self._finish("Failed", "BackoffLimitExceeded")

    def pod_finished(self, pod):
        index = self._index(pod)
        if self.active.get(index) is pod:
            del self.active[index]
        if self.finishing:
            self._maybe_done()
            return
        if pod.phase == "Succeeded":
            self.succeeded.add(index)
            self.c.event(pod, "IndexSucceeded", f"index {index}")
            self._check_success()
        else:
            self._pod_failed(pod, index)
        self.reconcile()
        self._maybe_done()

    def pod_gone(self, pod):
        index = self._index(pod)
        if self.active.get(index) is pod:
            # Deleted before it finished (by a test): the Job replaces it, uncounted.
            del self.active[index]
            self.reconcile()
        self._maybe_done()

    def _pod_failed(self, pod, index):
        code = pod.current.exit_code if pod.current else None
        action = self._failure_action(pod, code)
        if action == "FailJob":
            self._finish("Failed", f"PodFailurePolicy: exit {code} of {pod.name}")
            return
        if action == "Ignore":
            return
        if action == "FailIndex":
            self._index_failed(index, f"PodFailurePolicy: exit {code}")
            return
        self.failures[index] = self.failures.get(index, 0) + 1
        self.total_failures += 1
        n = self.failures[index]
        self.not_before[index] = self.c.loop.now() + min(
            self.c.scaled(POD_BACKOFF_INITIAL) * 2 ** (n - 1), self.c.scaled(POD_BACKOFF_CAP))
        if self.per_index is not None:
            if n > int(self.per_index):
                self._index_failed(index, f"{n} failed pods > backoffLimitPerIndex {self.per_index}")
        elif self.total_failures > self.backoff_limit:
            self._finish("Failed", "BackoffLimitExceeded")

    def _failure_action(self, pod, code):
        for rule in self.failure_rules:
            on = rule.get("onExitCodes")
            if not on or code is None:
                continue  # onPodConditions (disruptions) do not happen here
            if on.get("containerName") not in (None, pod.container["name"]):
                continue
            values = set(on.get("values", []))
            if (code in values) == (on.get("operator", "In") == "In"):
                return rule["action"]
        return "Count"

    def _index_failed(self, index, why):
        self.failed_indexes.add(index)
        self.c.event(f"job/{self.name}", "IndexFailed", f"{self.name} index {index}: {why}")
        if self.max_failed is not None and len(self.failed_indexes) > int(self.max_failed):
            self._finish("Failed", "MaxFailedIndexesExceeded")

    def _check_success(self):
        for rule in self.success_rules:
            want = parse_indexes(rule["succeededIndexes"]) if "succeededIndexes" in rule else None
            pool = self.succeeded & want if want is not None else self.succeeded
            if want is not None and not want <= self.succeeded and "succeededCount" not in rule:
                continue
            if len(pool) >= int(rule.get("succeededCount", len(want or ()))):
                self._finish("Complete", "SuccessPolicy")
                return
        if len(self.succeeded) == self.completions:
            self._finish("Complete", "CompletionsReached")

    def _deadline(self):
        if not self.finishing:
            self._finish("Failed", "DeadlineExceeded")

    def _finish(self, result, reason):
        """SuccessCriteriaMet / FailureTarget: terminate what still runs, then conclude."""
        self.finishing = result
        self.conditions.append((self.c.loop.now(), "SuccessCriteriaMet" if result == "Complete"
                                else "FailureTarget", reason))
        self.c.event(f"job/{self.name}", "Job" + result,
                     f"{self.name}: {reason}; terminating {len(self.active)} pods")
        for pod in list(self.active.values()):
            self.c.kubelet.delete(pod, reason=f"Job {self.name} {reason}")
        self._maybe_done()

    def _maybe_done(self):
        if self.result:
            return
        if not self.finishing and self.per_index is not None and self.failed_indexes and \
                len(self.succeeded) + len(self.failed_indexes) == self.completions:
            self._finish("Failed", "FailedIndexes")
            return
        if self.finishing and not any(not p.gone and not p.finished for p in self.pods):
            self.result = self.finishing
            self.conditions.append((self.c.loop.now(), self.finishing, ""))
            self.c.event(f"job/{self.name}", self.finishing, f"Job {self.name}")

    def stop(self, grace=None):
        """`kubectl delete job`: every pod deleted, running ones with their grace period."""
        self.finishing = self.finishing or "Deleted"
        for pod in self.pods:
            self.c.kubelet.delete(pod, grace, reason=f"Job {self.name} deleted")

    def status(self):
        return {"active": len(self.active), "succeeded": len(self.succeeded),
                "completedIndexes": format_indexes(self.succeeded),
                "failedIndexes": format_indexes(self.failed_indexes),
                "failed": self.total_failures, "conditions": [c[1] for c in self.conditions],
                "result": self.result}
