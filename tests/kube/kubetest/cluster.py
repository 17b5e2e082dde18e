"""A test's workload on the real cluster of scripts/kube: one namespace of its own (enforcing
the "restricted" Pod Security Standard, as the docs tell users to), the overlay's objects
applied with kubectl, its pods followed through the API server's watch and their logs through
the node's log files. Faults are made the way they happen: `kubectl delete pod`, a signal to a
container's process from the node (an OOM kill, a crash), a scheduling gate for a node that is
late.

    with KubeRun.from_overlay("local", replicas=3, overrides=...) as k:
        k.start(hold=["training-2"])
        k.wait_for(lambda: k.pod("training-0").ready, 120, "the head Ready")
"""
import json
import os
import secrets
import signal
import subprocess
import threading
import time

from . import podlog, workload
from .api import Api, ApiError
from .node import container_init, processes_of_container, pod_processes_left
from .pods import Pod, Run

REPO = workload.REPO
STATE = os.environ.get("RAYLAUNCH_KUBE_DIR", "/var/lib/raylaunch-kube")
KUBECONFIG = os.path.join(STATE, "kubeconfig", "admin.conf")
POD_LOGS = os.path.join(STATE, "pod-logs")
SCRIPTS_KUBE = os.path.join(REPO, "scripts", "kube")


class Skip(Exception):
    pass


class ClusterMissing(AssertionError):
    """No cluster: a failure that says how to make one (ctest's kube.up fixture does)."""


def kube_env():
    """The environment kubectl needs: scripts/kube env's KUBECONFIG and PATH."""
    out = subprocess.run([SCRIPTS_KUBE, "env"], capture_output=True, text=True, check=True).stdout
    env = dict(os.environ)
    for word in out.split()[1:]:
        name, _, value = word.partition("=")
        env[name] = value.replace("$PATH", os.environ.get("PATH", ""))
    return env


def require_cluster():
    if os.geteuid() != 0:
        raise Skip("the real cluster's tests run as root (scripts/kube runs a kubelet)")
    status = subprocess.run([SCRIPTS_KUBE, "status"], capture_output=True, text=True)
    if status.returncode != 0 or not os.path.exists(KUBECONFIG):
        raise ClusterMissing("the cluster is not running: `scripts/kube up && scripts/kube image` "
                             f"(ctest's kube.up fixture runs both)\n{status.stdout}")


def kubectl(*args, input=None, timeout=120, check=True, env=None):
    proc = subprocess.run(["kubectl", *args], input=input, capture_output=True, text=True,
                          timeout=timeout, env=env or kube_env())
    if check and proc.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)}: exit {proc.returncode}: {proc.stderr.strip()}")
    return proc


# What makes pods, deleted before the pods so that nothing makes them again. JobSets before Jobs.
WORKLOAD_COLLECTIONS = ("apis/leaderworkerset.x-k8s.io/v1/namespaces/{}/leaderworkersets",
                        "apis/jobset.x-k8s.io/v1alpha2/namespaces/{}/jobsets",
                        "apis/apps/v1/namespaces/{}/statefulsets", "apis/batch/v1/namespaces/{}/jobs")


class KubeRun:
    def __init__(self, docs, namespace=None, gated=False, pss="restricted", log=None):
        self.docs = docs
        self.namespace = namespace or f"rl-{secrets.token_hex(3)}"
        self.gated = gated
        self.pss = pss
        self.log = log
        self.api = Api.from_kubeconfig(KUBECONFIG)
        self.env = kube_env()
        self.held = set()
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self.objects = {}      # uid -> latest pod object
        self.ended = {}        # (uid, restart) -> terminated state
        self.logs = podlog.NodeLogs(POD_LOGS, self.namespace)
        self.threads = []
        self.started_at = None
        self.kustomize_dir = None

    @classmethod
    def from_overlay(cls, overlay, replicas=None, overrides=None, gated=False, mutate=None, components=(), **kw):
        docs = workload.prepare(workload.render(overlay, replicas, components), overrides, gated=gated,
                                mutate=mutate)
        return cls(docs, gated=gated, **kw)

    @classmethod
    def as_user(cls, overlay, **kw):
        """The overlay exactly as a user applies it: `kubectl apply -k manifests/overlays/<overlay>`."""
        path = os.path.join(REPO, "manifests", "overlays", overlay)
        run = cls(workload.render(path), **kw)
        run.kustomize_dir = path
        return run

    # --- life ---------------------------------------------------------------------------

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.teardown()

    def create_namespace(self):
        labels = {}
        if self.pss:
            labels = {f"pod-security.kubernetes.io/{m}": self.pss for m in ("enforce", "warn", "audit")}
        self.api.request("POST", "/api/v1/namespaces",
                         {"apiVersion": "v1", "kind": "Namespace",
                          "metadata": {"name": self.namespace, "labels": labels}})
        # Pods need the namespace's default ServiceAccount, which a controller adds.
        self.wait_for(lambda: self._exists(f"/api/v1/namespaces/{self.namespace}/serviceaccounts/default"),
                      30, "the namespace's default ServiceAccount")

    def start(self, hold=()):
        self.held = set(hold)
        if self.held and not self.gated:
            raise AssertionError("hold= needs a gated workload (from_overlay(..., gated=True))")
        self.create_namespace()
        self._spawn(self._watch_pods)
        self._spawn(podlog.follow, self.logs, self.stop_event)
        self.started_at = time.monotonic()
        if self.kustomize_dir:
            kubectl("apply", "-k", self.kustomize_dir, "-n", self.namespace, env=self.env)
        else:
            self.apply(self.docs)

    def apply(self, docs, *extra):
        text = "---\n".join(json.dumps(d) + "\n" for d in docs)
        return kubectl("apply", "-n", self.namespace, "-f", "-", *extra, input=text, env=self.env)

    def _spawn(self, fn, *args):
        t = threading.Thread(target=fn, args=args, daemon=True)
        t.start()
        self.threads.append(t)

    def teardown(self):
        """Everything of the test gone from the node: its pods killed at once (a scenario about
        deletion deletes first), the namespace deleted and waited for."""
        try:
            ns = f"/api/v1/namespaces/{self.namespace}"
            if self._exists(ns):
                for kind in WORKLOAD_COLLECTIONS:
                    try:
                        self.api.request("DELETE", "/" + kind.format(self.namespace),
                                         {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"})
                    except ApiError as e:
                        if e.status != 404:  # 404: that API is not installed (no LWS, no JobSet)
                            raise
                self.api.request("DELETE", f"{ns}/pods",
                                 {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0})
                self.api.delete(ns)
                deadline = time.monotonic() + 120
                while self._exists(ns) and time.monotonic() < deadline:
                    time.sleep(0.5)
            self._wait_processes_gone(60)
        finally:
            self.stop_event.set()
            for t in self.threads:
                t.join(timeout=45)

    def _exists(self, path):
        try:
            self.api.get(path)
            return True
        except ApiError as e:
            if e.status == 404:
                return False
            raise

    # --- following the pods -------------------------------------------------------------

    def _watch_pods(self):
        path = f"/api/v1/namespaces/{self.namespace}/pods"
        for kind, obj in self.api.watch(path, self.stop_event):
            self._record(obj)
            if kind != "DELETED":
                self._release_if_not_held(obj)

    def _record(self, obj):
        uid = obj["metadata"]["uid"]
        with self.lock:
            self.objects[uid] = obj
            for cs in obj.get("status", {}).get("containerStatuses", []):
                count = cs.get("restartCount", 0)
                last = cs.get("lastState", {}).get("terminated")
                if last and count > 0:
                    self.ended.setdefault((uid, count - 1), last)
                now = cs.get("state", {}).get("terminated")
                if now:
                    self.ended[(uid, count)] = now

    def _release_if_not_held(self, obj):
        gates = obj.get("spec", {}).get("schedulingGates") or []
        name = obj["metadata"]["name"]
        if any(g["name"] == workload.HOLD_GATE for g in gates) and name not in self.held:
            self._ungate(obj)

    def _ungate(self, obj):
        gates = obj["spec"].get("schedulingGates") or []
        kept = [g for g in gates if g["name"] != workload.HOLD_GATE]
        patch = [{"op": "replace", "path": "/spec/schedulingGates", "value": kept}] if kept else \
            [{"op": "remove", "path": "/spec/schedulingGates"}]
        try:
            self.api.patch(f"/api/v1/namespaces/{self.namespace}/pods/{obj['metadata']['name']}", patch)
        except ApiError:
            pass  # deleted meanwhile, or released already

    def hold(self, name):
        """The next pod named `name` stays unscheduled (its node "still booting")."""
        self.held.add(name)

    def release(self, name):
        self.held.discard(name)
        for obj in self._objects_named(name):
            if "deletionTimestamp" not in obj["metadata"]:
                self._ungate(obj)

    # --- what a test looks at -----------------------------------------------------------

    def _objects_named(self, name):
        """Pods named `name`, or with that hostname (an Indexed Job's training-1-x7k2p is
        training-1)."""
        with self.lock:
            objs = [o for o in self.objects.values()
                    if name in (o["metadata"]["name"], o.get("spec", {}).get("hostname"))]
        return sorted(objs, key=lambda o: o["metadata"]["creationTimestamp"])

    def pod(self, name):
        """The newest pod named `name` (a name like training-1, or an index)."""
        if isinstance(name, int):
            name = f"training-{name}"
        objs = self._objects_named(name)
        if not objs:
            raise AssertionError(f"no pod {name} in {self.namespace} (pods: {sorted(self.pod_names())})")
        return Pod(self, objs[-1])

    def pods_named(self, name):
        """Every pod object that had this name, oldest first (a deleted pod and its successor)."""
        return [Pod(self, o) for o in self._objects_named(name)]

    def pod_names(self):
        """The pods' hostnames (a StatefulSet's pod names; an Indexed Job's hostnames)."""
        with self.lock:
            return {o.get("spec", {}).get("hostname") or o["metadata"]["name"] for o in self.objects.values()}

    def job(self, name="training"):
        """The Job's status: {condition type: reason} of the true conditions, and its counts."""
        job = self.api.get(f"/apis/batch/v1/namespaces/{self.namespace}/jobs/{name}")
        status = job.get("status", {})
        conds = {c["type"]: c.get("reason") for c in status.get("conditions", []) if c["status"] == "True"}
        return conds, {k: status.get(k, 0) for k in ("active", "succeeded", "failed")}

    @property
    def pods(self):
        return [self.pod(n) for n in sorted(self.pod_names())]

    def runs_of(self, uid):
        self.logs.poll()
        with self.lock:
            obj = self.objects.get(uid)
            ended = {r: e for (u, r), e in self.ended.items() if u == uid}
        container = (obj or {}).get("spec", {}).get("containers", [{}])[0].get("name", "ray")
        starts = set(self.logs.starts(uid, container)) | set(ended)
        return [Run(i, self.logs.text(uid, container, i), ended.get(i)) for i in range(max(starts) + 1)] \
            if starts else []

    def wait_for(self, cond, timeout, what, period=0.25):
        """cond() until it is true (returned); `period` between looks (a look that execs in a pod,
        such as scenario.nodes, costs a Python start and Ray's import: a few seconds, not 0.25)."""
        deadline = time.monotonic() + timeout
        last_error = None
        while time.monotonic() < deadline:
            try:
                value = cond()
                if value:
                    return value
            except AssertionError as e:  # a pod that does not exist yet
                last_error = e
            time.sleep(period)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}"
                             + (f" (last: {last_error})" if last_error else "") + "\n" + self.describe())

    def events(self):
        items = self.api.get(f"/api/v1/namespaces/{self.namespace}/events")["items"]
        return sorted(items, key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "")

    def describe(self):
        out = [f"--- namespace {self.namespace}: pods"]
        for p in self.pods:
            out.append(f"{p.name} uid={p.uid[:8]} phase={p.phase} ready={p.ready} restarts={p.restart_count}"
                       f" state={json.dumps(p.state)[:300]} last={json.dumps(p.last_state)[:300]}")
        out.append("--- events")
        for e in self.events()[-40:]:
            out.append(f"{e.get('lastTimestamp')} {e['involvedObject'].get('name')} {e.get('reason')}: "
                       f"{(e.get('message') or '')[:300]}")
        for p in self.pods:
            for r in p.runs[-2:]:
                out.append(f"--- {p.name} start {r.index} (exit {r.exit_code}): last lines")
                out.extend(r.text().splitlines()[-25:])
        return "\n".join(out)

    # --- what a test does -------------------------------------------------------------------

    def delete_pod(self, name, grace=None, wait=False):
        """`kubectl delete pod NAME` (the kubelet's SIGTERM, SIGKILL after the grace period)."""
        name = self.pod(name).obj["metadata"]["name"]
        args = ["delete", "pod", name, "-n", self.namespace, f"--wait={str(wait).lower()}"]
        if grace is not None:
            args.append(f"--grace-period={grace}")
        kubectl(*args, env=self.env)

    def delete_workload(self, wait=False):
        """`kubectl delete` of the test's objects, as a user ends a run."""
        text = "---\n".join(json.dumps(d) + "\n" for d in self.docs)
        return kubectl("delete", "-n", self.namespace, "-f", "-", f"--wait={str(wait).lower()}",
                       input=text, env=self.env, timeout=600)

    def exec(self, name, argv, timeout=60):
        name = self.pod(name).obj["metadata"]["name"]
        proc = kubectl("exec", "-n", self.namespace, name, "--", *argv, check=False, timeout=timeout, env=self.env)
        return proc.returncode, proc.stdout + proc.stderr

    def processes(self, name):
        """[(host pid, command name)] of the processes in the pod's container now, from the node:
        every process whose cgroup is the container's."""
        cid = self.pod(name).container_id
        return processes_of_container(cid) if cid else []

    def kill_in_pod(self, name, process, sig=signal.SIGKILL):
        """`sig` to the pod's process(es) named `process` (comm), as the kernel's OOM killer or a
        crash would end them."""
        pids = [pid for pid, comm in self.processes(name) if comm == process]
        if not pids:
            raise AssertionError(f"no {process} in {name}: {self.processes(name)}")
        for pid in pids:
            os.kill(pid, sig)
        return pids

    def kill_container(self, name, sig=signal.SIGKILL):
        """The container's PID 1 (raylaunch) killed from the node: the container ends, the kubelet
        restarts it in the same pod."""
        pid = container_init(self.pod(name).container_id)
        if pid is None:
            raise AssertionError(f"{name}: no running container")
        os.kill(pid, sig)
        return pid

    def http_get(self, name, port, path, timeout=5):
        """GET from the node, as the kubelet's httpGet probe: (status, body) or (None, error)."""
        import http.client
        ip = self.pod(name).ip
        if not ip:  # scheduled, its sandbox not up yet: nothing to connect to, as for the kubelet
            return None, "the pod has no IP yet"
        conn = http.client.HTTPConnection(ip, port, timeout=timeout)
        try:
            conn.request("GET", path, headers={"User-Agent": "kube-probe/1.35"})
            resp = conn.getresponse()
            return resp.status, resp.read().decode("utf-8", "replace")
        except OSError as e:
            return None, str(e)
        finally:
            conn.close()

    def _wait_processes_gone(self, timeout):
        deadline = time.monotonic() + timeout
        while pod_processes_left(set(self.objects)) and time.monotonic() < deadline:
            time.sleep(0.5)
