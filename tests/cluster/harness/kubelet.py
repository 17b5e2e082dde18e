"""The kubelet's part: pod sandboxes, container starts and restarts, probes and what their
results mean, termination with the grace period. Runs on the cluster's loop thread.

Semantics (Kubernetes documentation, "Pod Lifecycle", "Container probes", "Termination of
Pods"): a container that exits is restarted according to restartPolicy (Always; OnFailure
for a non-zero exit; Never) after a back-off that starts at 0, then 10 s, doubling up to
300 s, reset after 10 minutes of running; a liveness or startup failure past its threshold
kills the container the same way a deletion does (SIGTERM to PID 1, SIGKILL when the grace
period is over) and counts as an exit; a container is ready after successThreshold
readiness successes and not ready after failureThreshold failures; a finished or deleted
pod's sandbox (its network) goes away.
"""
import os
import signal

from . import containerspec, netns
from .container import ContainerRun
from .probes import Probe, ProbeWorker
from .overrides import PROBES

BACKOFF_INITIAL, BACKOFF_CAP, BACKOFF_RESET = 10.0, 300.0, 600.0
DEFAULT_SHM = "64m"  # the runtime's /dev/shm when no volume is mounted there


class Kubelet:
    def __init__(self, cluster):
        self.c = cluster
        self.workers = {}  # id(run) -> [ProbeWorker]

    # --- sandbox
    def create(self, pod):
        c = self.c
        pod.created_at = c.loop.now()
        os.makedirs(pod.dir, exist_ok=True)
        pod.ip = c.network.next_pod_ip()
        pod.manifest["status"] = {"podIP": pod.ip, "hostIP": netns.NODE_IP, "phase": "Pending"}
        pod.netns = c.network.add_endpoint("pod-" + pod.name, pod.ip)
        domain = c.cluster_domain
        files = {"hosts": containerspec.hosts_file(pod.manifest, domain),
                 "resolv.conf": containerspec.resolv_conf(pod.manifest, domain, netns.DNS_IP),
                 "hostname": containerspec.hostname(pod.manifest, domain) + "\n"}
        for name, text in files.items():
            with open(os.path.join(pod.dir, name), "w") as f:
                f.write(text)
        pod.probes = {kind: Probe(kind, pod.container[field])
                      for kind, field in PROBES.items() if field in pod.container}
        c.event(pod, "Scheduled", f"{pod.ip} in {pod.netns}")
        try:
            pod.runtime = self._runtime_spec(pod)
        except containerspec.ConfigError as e:
            pod.waiting = "CreateContainerConfigError"
            c.event(pod, "Failed", f"Error: {e}")
            return
        c.pods_changed()
        self.start_container(pod)

    def _runtime_spec(self, pod):
        c = self.c
        node = {"name": "rlc-node", "ip": netns.NODE_IP, "api_ip": netns.NODE_IP}
        kenv = containerspec.container_env(pod.manifest, pod.container, node, c.secrets, c.config_maps)
        env = containerspec.runtime_env(kenv, c.image_env, containerspec.hostname(pod.manifest, c.cluster_domain))
        binds = self._volume_binds(pod)
        if c.bin_dir:
            binds.insert(0, {"src": c.bin_dir, "dst": "/usr/local/bin", "ro": True})
        binds += [{"src": src, "dst": dst, "ro": True} for src, dst in c.host_dirs]
        binds += [{"src": os.path.join(pod.dir, f), "dst": f"/etc/{f}"}
                  for f in ("hosts", "hostname", "resolv.conf")]
        shm = None if any(b["dst"] == "/dev/shm" for b in binds) else DEFAULT_SHM
        spec = containerspec.security(pod.spec, pod.container)
        spec.update({"netns": os.path.join(netns.NETNS_DIR, pod.netns),
                     "hostname": containerspec.hostname(pod.manifest, c.cluster_domain),
                     "argv": containerspec.argv(pod.container, kenv), "env": sorted(env.items()),
                     "cwd": pod.container.get("workingDir"), "binds": binds, "shm_size": shm})
        return spec

    def _volume_binds(self, pod):
        volumes = {v["name"]: v for v in pod.spec.get("volumes", [])}
        binds = []
        for m in pod.container.get("volumeMounts", []):
            v = volumes.get(m["name"])
            if v is None:
                raise containerspec.ConfigError(f"volumeMount {m['name']!r} has no volume")
            src = self.c.volume_dir(pod, v)
            if src is None:
                self.c.event(pod, "VolumeSkipped", f"volume {m['name']} ({sorted(v)}) is not supported")
                continue
            if m.get("subPath"):
                src = os.path.join(src, m["subPath"])
                os.makedirs(src, exist_ok=True)
            binds.append({"src": src, "dst": m["mountPath"], "ro": bool(m.get("readOnly"))})
        return binds

    def _remove_sandbox(self, pod):
        if pod.netns:
            self.c.network.remove_endpoint(pod.netns)
        self.c.pods_changed()

    # --- containers
    def start_container(self, pod):
        pod.restart_timer = None
        if pod.deleting or self.c.shutting_down:
            return
        restart = len(pod.runs)
        container = pod.container
        run = ContainerRun(restart, pod.runtime, os.path.join(pod.dir, f"run-{restart}"),
                           container.get("terminationMessagePath", "/dev/termination-log"),
                           container.get("terminationMessagePolicy", "File"), self.c.loop.now)
        pod.runs.append(run)
        pod.waiting = "ContainerCreating"
        run.start(self.c.log_line_from_thread(pod),
                  lambda r, t, word, rest: self.c.loop.post(self._status, pod, r, t, word, rest))

    def _status(self, pod, run, t, word, rest):
        c = self.c
        if word == "pid":
            run.host_pid = int(rest)
        elif word == "warn":
            run.warnings.append(rest)
            c.event(pod, "Warning", rest)
        elif word == "started":
            run.started_at = t
            run.started_mono = c.loop.t0 + t
            pod.phase = "Running"
            pod.waiting = None
            c.event(pod, "Started", f"container {pod.container['name']} (restart {run.restart}), "
                                    f"host pid {run.host_pid}")
            run.started = "startup" not in pod.probes
            run.ready = run.started and "readiness" not in pod.probes
            self._start_probes(pod, run)
            c.pods_changed()
            if run.term_pending:
                run.term_pending = False
                run.send(signal.SIGTERM)
        elif word == "error":
            # The runtime could not start the command (runc's StartError); "exit" follows.
            run.start_error = rest
            c.event(pod, "Failed", f"Error: {rest}")
        elif word in ("exit", "lost") and run.finished_at is None:
            code, sig = (int(x) for x in rest.split()) if word == "exit" else (128, 0)
            run.started_at = run.started_at or t
            run.finish(code, sig, t)
            if run.start_error or word == "lost":
                run.exit_code, run.reason = 128, "StartError"
                run.message = run.start_error or rest
            how = f"signal {signal.Signals(sig).name}" if sig else f"exit {run.exit_code}"
            c.event(pod, "Exited", f"restart {run.restart}: {how}, reason {run.reason}"
                                   + (f", killed: {run.killed_by}" if run.killed_by else ""))
            self._after_exit(pod, run)

    def _start_probes(self, pod, run):
        workers = [ProbeWorker(p, pod, run, pod.container, self.c.network.node, self.c.loop.now,
                               lambda r, pod=pod, run=run: self.c.loop.post(self._probe_result, pod, run, r))
                   for p in pod.probes.values()]
        self.workers[id(run)] = workers
        for w in workers:
            w.start()

    def _stop_probes(self, run, kinds=None):
        for w in self.workers.get(id(run), []):
            if kinds is None or w.probe.kind in kinds:
                w.stop()

    def _after_exit(self, pod, run):
        c = self.c
        self._stop_probes(run)
        run.ready = False
        if pod.kill_timer:
            pod.kill_timer.cancel()
            pod.kill_timer = None
        policy = pod.restart_policy
        restart = not pod.deleting and not c.shutting_down and (
            policy == "Always" or (policy == "OnFailure" and run.exit_code != 0))
        if restart:
            ran = run.finished_at - run.started_at
            if ran >= c.scaled(BACKOFF_RESET):
                pod.backoff = 0.0
            delay = pod.backoff
            pod.backoff = c.scaled(BACKOFF_INITIAL) if delay == 0 else min(2 * delay, c.scaled(BACKOFF_CAP))
            pod.waiting = "CrashLoopBackOff" if delay else "ContainerCreating"
            if delay:
                c.event(pod, "BackOff", f"restarting the container in {delay:g} s")
            pod.restart_timer = c.loop.later(delay, self.start_container, pod)
            c.pods_changed()
            if pod.owner:
                pod.owner.container_restarted(pod, run)
            return
        pod.phase = "Succeeded" if run.exit_code == 0 else "Failed"
        pod.finished_at = c.loop.now()
        self._remove_sandbox(pod)
        if pod.deleting:
            self._gone(pod)
        elif pod.owner:
            pod.owner.pod_finished(pod)

    def kill(self, pod, reason, grace=None):
        """SIGTERM to PID 1 now, SIGKILL when the grace period is over."""
        run = pod.current
        if not run or run.finished_at is not None:
            return
        grace = pod.grace if grace is None else float(grace)
        run.killed_by = reason
        self._stop_probes(run, ("liveness", "startup"))
        self.c.event(pod, "Killing", f"{reason}; grace period {grace:g} s")
        if grace <= 0:
            run.send(signal.SIGKILL)
            return
        if run.started_at is None:
            # Still being created: the kubelet stops a container once its start has returned
            # (the pod worker serialises them), so SIGTERM follows the "started" report.
            run.term_pending = True
        else:
            run.send(signal.SIGTERM)
        if pod.kill_timer:
            pod.kill_timer.cancel()
        pod.kill_timer = self.c.loop.later(grace, self._grace_over, pod, run)

    def _grace_over(self, pod, run):
        pod.kill_timer = None
        if run.finished_at is None:
            self.c.event(pod, "Killing", "grace period over: SIGKILL")
            run.send(signal.SIGKILL)

    def delete(self, pod, grace=None, reason="deleted"):
        if pod.gone:
            return
        first = not pod.deleting
        pod.deleting = True
        if first:
            self.c.event(pod, "Deleting", reason)
            self.c.pods_changed()  # not ready any more (DNS without publishNotReadyAddresses)
        if pod.restart_timer:
            pod.restart_timer.cancel()
            pod.restart_timer = None
        run = pod.current
        if run and run.finished_at is None:
            self.kill(pod, reason, grace)
        else:
            if not pod.finished_at:
                pod.finished_at = self.c.loop.now()
                self._remove_sandbox(pod)
            self._gone(pod)

    def _gone(self, pod):
        pod.gone = True
        netns.unmount_under(pod.dir)  # its memory-backed emptyDir volumes
        self.c.event(pod, "Gone", f"phase {pod.phase}, exit codes {pod.exit_codes}")
        self.c.pods_changed()
        if pod.owner:
            pod.owner.pod_gone(pod)

    # --- probe results
    def _probe_result(self, pod, run, result):
        c = self.c
        c.probe_results.append(result)
        if run is not pod.current or run.finished_at is not None or run.killed_by:
            return
        probe = pod.probes[result.kind]
        counts = run.__dict__.setdefault("probe_counts", {})
        ok_n, fail_n = counts.get(result.kind, (0, 0))
        ok_n, fail_n = (ok_n + 1, 0) if result.ok else (0, fail_n + 1)
        counts[result.kind] = (ok_n, fail_n)
        if not result.ok:
            c.event(pod, "Unhealthy", f"{result.kind.capitalize()} probe {result.outcome}: {result.detail[:200]}",
                    quiet=True)
        if result.kind == "startup":
            if result.ok:
                run.started = True
                if "readiness" not in pod.probes:
                    self._set_ready(pod, run, True)
            elif fail_n >= probe.failure_threshold:
                self.kill(pod, "startup probe failed", probe.grace)
        elif result.kind == "liveness":
            if fail_n >= probe.failure_threshold:
                self.kill(pod, "liveness probe failed", probe.grace)
        elif result.kind == "readiness":
            if result.ok and ok_n >= probe.success_threshold and not run.ready:
                self._set_ready(pod, run, True)
            elif not result.ok and fail_n >= probe.failure_threshold and run.ready:
                self._set_ready(pod, run, False)

    def _set_ready(self, pod, run, ready):
        run.ready = ready
        self.c.event(pod, "Ready" if ready else "NotReady", f"restart {run.restart}")
        self.c.pods_changed()
