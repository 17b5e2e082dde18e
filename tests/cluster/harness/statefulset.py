"""The StatefulSet controller, as far as the training pods need it: pods `<name>-<ordinal>`
with hostname = pod name and subdomain = serviceName, the pod-name and pod-index labels,
podManagementPolicy Parallel (all at once) or OrderedReady (ordinal N+1 once N is Running
and Ready), and a deleted pod recreated under the same name (with a new IP).
"""
import copy
import uuid


class StatefulSetController:
    kind = "StatefulSet"

    def __init__(self, cluster, sts):
        self.c = cluster
        self.sts = sts
        self.name = sts["metadata"]["name"]
        self.replicas = int(sts["spec"].get("replicas", 1))
        self.ordered = sts["spec"].get("podManagementPolicy", "OrderedReady") == "OrderedReady"
        self.held = set()
        self.pods = {}  # ordinal -> current Pod
        self.stopping = False
        self._busy = False

    def pod_names(self):
        return [f"{self.name}-{i}" for i in range(self.replicas)]

    def new_pod(self, ordinal):
        tmpl = copy.deepcopy(self.sts["spec"]["template"])
        meta = tmpl.setdefault("metadata", {})
        name = f"{self.name}-{ordinal}"
        labels = meta.setdefault("labels", {})
        labels.update({"statefulset.kubernetes.io/pod-name": name,
                       "apps.kubernetes.io/pod-index": str(ordinal),
                       "controller-revision-hash": f"{self.name}-{self.c.run_id}"})
        meta.update({"name": name, "namespace": self.c.namespace, "uid": str(uuid.uuid4()),
                     "ownerReferences": [{"kind": "StatefulSet", "name": self.name}]})
        spec = tmpl["spec"]
        spec["hostname"] = name
        spec["subdomain"] = self.sts["spec"].get("serviceName")
        spec.setdefault("restartPolicy", "Always")
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}

    def reconcile(self):
        if self.stopping or self.c.shutting_down or self._busy:
            return  # (creating a pod calls back here before it is in self.pods)
        self._busy = True
        try:
            self._reconcile()
        finally:
            self._busy = False

    def _reconcile(self):
        for i in range(self.replicas):
            current = self.pods.get(i)
            if current is not None and not current.gone:
                if self.ordered and not (current.running and current.ready):
                    return  # OrderedReady: the next ordinal waits for this one
                continue
            if i in self.held:
                if self.ordered:
                    return
                continue
            self.pods[i] = self.c.create_pod(self.new_pod(i), self)
            if self.ordered:
                return

    def hold(self, ordinal):
        self.held.add(ordinal)

    def release(self, ordinal):
        self.held.discard(ordinal)
        self.reconcile()

    # --- from the kubelet
    def pods_changed(self):
        if self.ordered:
            self.reconcile()

    def container_restarted(self, pod, run):
        pass

    def pod_finished(self, pod):
        # restartPolicy is always Always here, so only deletion ends a pod.
        pass

    def pod_gone(self, pod):
        self.reconcile()

    def stop(self, grace=None):
        """`kubectl delete statefulset`: every pod terminated with its grace period."""
        self.stopping = True
        for pod in self.pods.values():
            self.c.kubelet.delete(pod, grace, reason="StatefulSet deleted")

    def status(self):
        live = [p for p in self.pods.values() if not p.gone]
        return {"replicas": len(live), "readyReplicas": sum(p.ready for p in live),
                "restarts": sum(p.restart_count for p in live)}
