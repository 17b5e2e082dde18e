"""A whole cluster on one machine: the workload of a rendered overlay run by the harness's
kubelet and controllers, in network/UTS/mount/PID namespaces, with dnsmasq as cluster DNS.

    with Cluster.from_overlay("p4de", replicas=3, raylaunch=BIN, launch=[...]) as c:
        c.start()
        c.wait_for(lambda: c.pod("training-0").ready, 30, "head ready")

Everything it creates is removed by `teardown` (also on exceptions, Ctrl-C and at exit),
and what a killed run left behind is removed by the next one (netns.sweep_stale).
"""
import atexit
import os
import secrets as _secrets
import shutil
import subprocess
import sys
import threading
import time

from . import manifest, netns, volumes
from .dns import ClusterDNS, service_records
from .job import IndexedJobController
from .kubelet import Kubelet
from .loop import Loop
from .overrides import Overrides
from .pod import Event, Pod
from .statefulset import StatefulSetController

TOOLS = ("ip", "dnsmasq", "setpriv")


class NeedsRoot(Exception):
    """The harness cannot run here (not root, or a tool is missing): tests skip."""


def check_host():
    if os.geteuid() != 0:
        raise NeedsRoot("needs root (network, mount and PID namespaces)")
    missing = [t for t in TOOLS if not shutil.which(t) and not os.path.exists(f"/usr/sbin/{t}")]
    if missing:
        raise NeedsRoot(f"missing {', '.join(missing)} (scripts/deps --test installs them)")
    # Root in a container without CAP_SYS_ADMIN, or with namespaces disabled: say so once.
    probe = subprocess.run(["unshare", "--net", "--mount", "--uts", "--ipc", "--pid", "--fork", "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        raise NeedsRoot(f"cannot create namespaces here: {probe.stderr.strip()}")


class Cluster:
    def __init__(self, docs, raylaunch=None, tools=None, namespace="default", cluster_domain="cluster.local",
                 image_env=None, path_prefix=(), secrets=None, config_maps=None, mutate_pod=None,
                 log=None, show_events=False, keep=False, workloads=None, default_route=True,
                 **overrides):
        self.docs = docs
        self.workloads = [w for w in manifest.workloads(docs)
                          if workloads is None or w["metadata"]["name"] in workloads]
        if not self.workloads:
            raise manifest.ManifestError("nothing to run: no StatefulSet or Indexed Job"
                                         + (f" named {sorted(workloads)}" if workloads else ""))
        self.services = [s for s in manifest.services(docs) if s["spec"].get("clusterIP") == "None"]
        if raylaunch and not os.access(raylaunch, os.X_OK):
            raise ValueError(f"raylaunch={raylaunch}: not an executable file (build it, or pass the built binary)")
        self.raylaunch = raylaunch
        # Other programs of the "image" ({name: host path}), next to raylaunch: a host path
        # under /tmp would not be visible in the pods (each has its own /tmp).
        self.tools = dict(tools or {})
        # The checkout when it lives under /tmp (a CI clone): the pods run its fakes and test
        # programs from their host paths, and each pod has its own /tmp (see _up_network).
        repo = os.path.realpath(manifest.REPO)
        self.checkout_in_tmp = repo if repo == "/tmp" or repo.startswith("/tmp/") else None
        self.host_dirs = []  # [(source on the host, path in the pods)], bound read-only
        for name, path in self.tools.items():
            if not os.access(path, os.X_OK):
                raise ValueError(f"tools[{name!r}]={path}: not an executable file")
        self.namespace = namespace
        self.cluster_domain = cluster_domain
        self.overrides = Overrides(**overrides)
        self.image_env = dict(image_env or {})
        if path_prefix:
            base = self.image_env.get("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
            self.image_env["PATH"] = ":".join(list(path_prefix) + [base])
        self.secrets = secrets or {}
        self.config_maps = manifest.config_maps(docs)
        self.config_maps.update(config_maps or {})
        self.mutate_pod = mutate_pod
        self.sink = log
        self.show_events = show_events
        self.keep = keep or bool(os.environ.get("RLC_KEEP"))
        self.default_route = default_route
        self.events = []
        self.probe_results = []
        self.errors = []
        self.all_pods = []
        self.shutting_down = False
        self._sink_lock = threading.Lock()
        self._width = 10
        self._up = False
        self._torn = False

    @classmethod
    def from_overlay(cls, overlay, replicas=None, **kw):
        return cls(manifest.render(overlay, replicas), **kw)

    # --- lifecycle
    def __enter__(self):
        self.up()
        return self

    def __exit__(self, *exc):
        self.teardown()

    def up(self):
        check_host()
        netns.sweep_stale(lambda msg: self._say(f"[cluster] {msg}"))
        self.run_id = _secrets.token_hex(3)
        self.state = netns.StateDir(self.run_id)
        self.dir = self.state.path
        atexit.register(self.teardown)
        self._up = True
        self.loop = Loop(self._loop_error)
        self.network = netns.Network(self.run_id, self.default_route)
        self.dns = ClusterDNS(self.network, self.dir, self.cluster_domain, self.run_in_node)
        self.kubelet = Kubelet(self)
        try:
            self._up_network()
        except BaseException:
            self.teardown()  # `with` does not call __exit__ when __enter__ fails
            raise
        return self

    def _up_network(self):
        self.network.create()
        self.dns.start()
        self.bin_dir = None
        if self.checkout_in_tmp:
            # The shim builds each pod's root on a tmpfs at /tmp, hiding the host's /tmp: bind
            # the checkout from a path outside it (unmounted with the state directory).
            src = os.path.join(self.dir, "checkout")
            os.makedirs(src)
            netns.run_checked(["mount", "--bind", "-o", "ro", self.checkout_in_tmp, src])
            self.host_dirs.append((src, self.checkout_in_tmp))
        copies = dict(self.tools)
        if self.raylaunch:
            copies["raylaunch"] = self.raylaunch
        if copies:
            # Copies, as in an image: visible in the pods whatever the binaries' host paths.
            self.bin_dir = os.path.join(self.dir, "bin")
            os.makedirs(self.bin_dir)
            for name, path in copies.items():
                shutil.copyfile(path, os.path.join(self.bin_dir, name))
                os.chmod(os.path.join(self.bin_dir, name), 0o755)
        self.controllers = [StatefulSetController(self, w) if w["kind"] == "StatefulSet"
                            else IndexedJobController(self, w) for w in self.workloads]
        self.loop.start()

    def start(self, hold=()):
        """Creates the workload's pods, except the held ones (names or indexes): those stay
        unscheduled (no IP, no DNS record) until `release`."""
        def go():
            for h in hold:
                ctrl, index = self._index_of(h)
                ctrl.hold(index)
            for ctrl in self.controllers:
                if isinstance(ctrl, IndexedJobController):
                    ctrl.start()
                ctrl.reconcile()
        self.loop.call(go)
        return self

    def hold(self, which):
        """From now on the controller does not (re)create this pod: with delete_pod, a pod
        gone for good (a head that stays away), until `release`."""
        self.loop.call(lambda: (lambda c, i: c.hold(i))(*self._index_of(which)))

    def release(self, which):
        self.loop.call(lambda: (lambda c, i: c.release(i))(*self._index_of(which)))

    def _index_of(self, which):
        """(controller, index) from 3 (with one workload), "training-3" or "training-3-x7k2p"."""
        if isinstance(which, int):
            return self.controller, which
        for ctrl in sorted(self.controllers, key=lambda c: -len(c.name)):
            rest = str(which)[len(ctrl.name) + 1:]
            if str(which).startswith(ctrl.name + "-") and rest.split("-")[0].isdigit():
                return ctrl, int(rest.split("-")[0])
        raise KeyError(f"{which!r} names no pod of {[c.name for c in self.controllers]}")

    @property
    def controller(self):
        """The workload's controller, when the build has one workload."""
        if len(self.controllers) != 1:
            raise ValueError(f"{len(self.controllers)} workloads: use controllers")
        return self.controllers[0]

    def teardown(self):
        if self._torn or not self._up:
            return
        self._torn = True
        self.shutting_down = True
        try:
            self.loop.call(lambda: None, timeout=5)  # what the loop was doing is done
        except Exception:  # noqa: BLE001 - tearing down whatever the loop's state
            pass
        for workers in self.kubelet.workers.values():
            for w in workers:
                w.stop()
        # The shims go first, while the loop thread that forked them (their PR_SET_PDEATHSIG
        # parent) is alive: each SIGKILLs and reaps its PID 1, so no zombie is left behind.
        runs = [r for p in self.all_pods for r in p.runs if r.proc]
        for r in runs:
            r.abandon()
        deadline = time.monotonic() + 5
        for r in runs:
            try:
                r.proc.wait(max(0.1, deadline - time.monotonic()))
            except Exception:  # noqa: BLE001
                r.proc.kill()
        self.loop.stop()
        self.dns.stop()
        self.network.destroy()
        netns.unmount_under(self.dir)
        self.state.remove(keep=self.keep)
        if self.keep:
            self._say(f"[cluster] kept {self.dir}")

    def leftovers(self):
        """What of this run still exists: namespaces, state directory, processes."""
        out = []
        if os.path.isdir(netns.NETNS_DIR):
            out += [n for n in os.listdir(netns.NETNS_DIR) if n.startswith(self.network.prefix)]
        if os.path.exists(self.dir) and not self.keep:
            out.append(self.dir)
        for p in self.all_pods:
            for r in p.runs:
                for pid in (r.host_pid, r.proc.pid if r.proc else None):
                    if pid and os.path.exists(f"/proc/{pid}"):  # zombies count: teardown reaps
                        out.append(f"pid {pid} ({p.name})")
        if self.dns.proc and self.dns.proc.poll() is None:
            out.append(f"dnsmasq pid {self.dns.proc.pid}")
        return out

    # --- called on the loop
    def create_pod(self, manifest_, owner):
        manifest_ = self.overrides.apply(manifest_)
        if self.mutate_pod:
            manifest_ = self.mutate_pod(manifest_) or manifest_
        pod = Pod(manifest_, owner, os.path.join(self.dir, "pods", manifest_["metadata"]["name"]
                                                 + "-" + manifest_["metadata"]["uid"][:8]))
        self.all_pods.append(pod)
        self._width = max(self._width, len(pod.name))
        self.kubelet.create(pod)
        return pod

    def pods_changed(self):
        self._sync_dns()
        for ctrl in self.controllers:
            ctrl.pods_changed()

    def _sync_dns(self):
        self.dns.set_records(service_records(self.services, self.all_pods, self.namespace,
                                             self.cluster_domain))

    def volume_dir(self, pod, volume):
        return volumes.host_dir(self, pod, volume)

    def scaled(self, seconds):
        return self.overrides.scaled(seconds)

    def event(self, pod, reason, message, quiet=False):
        name = pod.name if isinstance(pod, Pod) else (pod or "")
        e = Event(self.loop.now(), name, reason, message)
        self.events.append(e)
        if self.show_events and not quiet:
            self._say(f"{'[cluster]':<{self._width}} | {e.t:7.3f} {name} {reason}: {message}")

    def log_line_from_thread(self, pod):
        path = os.path.join(pod.dir, "log")

        def on_line(run, line):
            with self._sink_lock:
                with open(path, "a") as f:
                    f.write(f"{line.t:.3f} {run.restart} {line.stream} {line.text}\n")
            self._say(f"{pod.name:<{self._width}} | {line.text}")
        return on_line

    def _say(self, text):
        if self.sink is not None:
            with self._sink_lock:
                self.sink.write(text + "\n")
                self.sink.flush()

    def _loop_error(self, text):
        self.errors.append(text)
        sys.stderr.write(f"[cluster] harness error on the kubelet loop:\n{text}")

    # --- the test's API
    @property
    def pods(self):
        """Pods that exist now (not yet gone), in creation order."""
        return [p for p in self.all_pods if not p.gone]

    def pod(self, which):
        """A pod by name, hostname, or index/ordinal (the current one for that index)."""
        live = self.pods + [p for p in reversed(self.all_pods) if p.gone]
        for p in live:
            if which in (p.name, p.hostname):
                return p
        if isinstance(which, int):
            for p in live:
                if p.hostname.rsplit("-", 1)[-1] == str(which):
                    return p
        raise KeyError(f"no pod {which!r} (pods: {[p.name for p in self.all_pods]})")

    @property
    def job(self):
        jobs = [c for c in self.controllers if isinstance(c, IndexedJobController)]
        return jobs[0] if len(jobs) == 1 else None

    def wait_for(self, cond, timeout, what):
        deadline = time.monotonic() + timeout
        while True:
            if self.errors:
                raise AssertionError(f"harness error while waiting for {what}:\n{self.errors[0]}")
            value = cond()
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {timeout} s waiting for {what}\n{self.describe()}")
            time.sleep(0.02)

    def delete_pod(self, which, grace=None):
        """`kubectl delete pod` (the controller recreates it)."""
        self.loop.call(self.kubelet.delete, self.pod(which), grace)

    def kill(self, which, sig):
        """A signal to the pod's PID 1 from outside the kubelet (a crash, an OOM kill)."""
        pod = self.pod(which)
        pod.current.send(sig)

    def stop(self, grace=None, timeout=None):
        """Deletes the workloads, waits until every pod is gone."""
        self.loop.call(lambda: [c.stop(grace) for c in self.controllers])
        limit = timeout or max([p.grace for p in self.pods] + [1]) + 10
        self.wait_for(lambda: not self.pods, limit, "every pod gone")

    def exec(self, which, argv, timeout=10):
        """`kubectl exec`: (exit code or None on timeout, output)."""
        pod = self.pod(which)
        return pod.current.exec(argv, timeout)

    def processes(self, which):
        return self.pod(which).processes()

    def path_in(self, which, path):
        return self.pod(which).path(path)

    def run_in_node(self, fn):
        """Runs fn in a thread inside the node's network namespace (where the kubelet is)."""
        box = {}

        def target():
            try:
                netns.enter_netns(self.network.node)
                box["value"] = fn()
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                box["error"] = e
        t = threading.Thread(target=target)
        t.start()
        t.join()
        if "error" in box:
            raise box["error"]
        return box["value"]

    def http_get(self, which, port, path="/", timeout=2.0):
        """A GET to the pod IP from the node: (ok, outcome, "status body")."""
        from .probes import http_get
        ip = self.pod(which).ip
        return self.run_in_node(lambda: http_get(ip, port, path, timeout))

    def probes_of(self, which, kind=None):
        name = self.pod(which).name if not isinstance(which, Pod) else which.name
        return [r for r in self.probe_results if r.pod == name and kind in (None, r.kind)]

    def describe(self, log_lines=15):
        """Events and the tail of each pod's log: what a failed test prints."""
        out = ["--- events"] + [repr(e) for e in self.events[-60:]] + ["--- pods"]
        for p in self.all_pods:
            out.append(repr(p))
            for r in p.runs:
                out += [f"    #{r.restart} {line.stream}: {line.text[:300]}" for line in r.log[-log_lines:]]
        return "\n".join(out)

