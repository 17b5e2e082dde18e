"""A pod as the cluster keeps it: its object (metadata, spec), its sandbox (network namespace,
IP), its container starts, its events. Read by tests; changed only on the kubelet loop."""
import os


class Event:
    __slots__ = ("t", "pod", "reason", "message")

    def __init__(self, t, pod, reason, message):
        self.t, self.pod, self.reason, self.message = t, pod, reason, message

    def __repr__(self):
        return f"{self.t:8.3f} {self.pod} {self.reason}: {self.message}"


class Pod:
    def __init__(self, manifest, owner, state_dir):
        self.manifest = manifest
        self.owner = owner
        self.dir = state_dir
        meta = manifest["metadata"]
        self.name = meta["name"]
        self.namespace = meta["namespace"]
        self.uid = meta["uid"]
        self.ip = None
        self.netns = None
        self.phase = "Pending"
        self.waiting = "ContainerCreating"  # why no container runs now, when none does
        self.runs = []
        self.deleting = False
        self.gone = False
        self.created_at = None
        self.finished_at = None
        self.probes = {}  # kind -> Probe (from the spec, after the test's overrides)
        self.runtime = None  # the shim spec common to every start
        self.backoff = 0.0
        self.restart_timer = None
        self.kill_timer = None

    # --- identity as Kubernetes gives it
    @property
    def spec(self):
        return self.manifest["spec"]

    @property
    def container(self):
        return self.spec["containers"][0]

    @property
    def hostname(self):
        return self.spec["hostname"]

    @property
    def subdomain(self):
        return self.spec.get("subdomain")

    @property
    def labels(self):
        return self.manifest["metadata"].get("labels", {})

    @property
    def annotations(self):
        return self.manifest["metadata"].get("annotations", {})

    @property
    def restart_policy(self):
        return self.spec.get("restartPolicy", "Always")

    @property
    def grace(self):
        return float(self.spec.get("terminationGracePeriodSeconds", 30))

    # --- state
    @property
    def current(self):
        return self.runs[-1] if self.runs else None

    @property
    def restart_count(self):
        return max(0, len(self.runs) - 1)

    @property
    def running(self):
        run = self.current
        return bool(run and run.running)

    @property
    def ready(self):
        run = self.current
        return bool(run and run.running and run.ready and not self.deleting)

    @property
    def finished(self):
        return self.phase in ("Succeeded", "Failed")

    @property
    def host_pid(self):
        """PID 1 of the running container, as the host sees it."""
        run = self.current
        return run.host_pid if run and run.running else None

    @property
    def exit_codes(self):
        return [r.exit_code for r in self.runs if r.exit_code is not None]

    @property
    def termination_message(self):
        done = [r for r in self.runs if r.finished_at is not None]
        return done[-1].message if done else None

    def log_text(self, restart=None, stream=None):
        """The container's log: one start's (restart=N, like `kubectl logs --previous` for
        N-1) or all of them in order."""
        runs = self.runs if restart is None else [self.runs[restart]]
        return "\n".join(r.text(stream) for r in runs)

    def processes(self):
        """The pod's processes now, read from the host's /proc without entering the pod:
        [(host pid, pid in the pod, command name)], PID 1 first."""
        if not self.host_pid:
            return []
        try:
            ns = os.readlink(f"/proc/{self.host_pid}/ns/pid")
        except OSError:
            return []
        out = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                if os.readlink(f"/proc/{entry}/ns/pid") != ns:
                    continue
                with open(f"/proc/{entry}/status") as f:
                    status = dict(line.split(":", 1) for line in f if ":" in line)
            except OSError:
                continue
            out.append((int(entry), int(status["NSpid"].split()[-1]), status["Name"].strip()))
        return sorted(out, key=lambda p: p[1])

    def path(self, path):
        """A path of the pod's own filesystem (its /tmp, /dev/shm...) as the host can open it."""
        if not self.host_pid:
            raise ValueError(f"{self.name} has no running container")
        return f"/proc/{self.host_pid}/root{path}"

    def __repr__(self):
        return (f"<Pod {self.name} {self.phase} ip={self.ip} restarts={self.restart_count}"
                f" ready={self.ready}{' deleting' if self.deleting else ''}{' gone' if self.gone else ''}>")
