"""What a test reads of a pod: the latest object of a name (a recreated pod is a new object, with
a new uid) and its container starts, each with its log from the node's files and how it ended
(the kubelet's terminated state: exit code, reason, termination message).
"""


class Run:
    """One container start: its log as the node's files hold it, and how it ended."""

    def __init__(self, index, log, ended):
        self.index = index
        self.text_ = log
        ended = ended or {}
        self.exit_code = ended.get("exitCode")
        self.reason = ended.get("reason")
        self.message = ended.get("message")
        self.ended = bool(ended)

    def text(self):
        return self.text_

    def lines(self, needle):
        return [line for line in self.text_.splitlines() if needle in line]


class Pod:
    """The latest of a pod's objects by name (a recreated pod is a new object: new uid)."""

    def __init__(self, run, obj):
        self._run = run
        self.obj = obj
        meta, status = obj["metadata"], obj.get("status", {})
        self.name, self.uid = meta["name"], meta["uid"]
        self.deleting = "deletionTimestamp" in meta
        self.ip = status.get("podIP")
        self.phase = status.get("phase")
        conds = {c["type"]: c["status"] for c in status.get("conditions", [])}
        self.ready = conds.get("Ready") == "True"
        self.scheduled = conds.get("PodScheduled") == "True"
        cs = next(iter(status.get("containerStatuses", [])), {})
        self.restart_count = cs.get("restartCount", 0)
        self.state = cs.get("state", {})
        self.last_state = cs.get("lastState", {})
        self.container_id = (cs.get("containerID") or "").split("://")[-1] or None
        self.running = "running" in self.state

    @property
    def runs(self):
        return self._run.runs_of(self.uid)

    def log_text(self, restart=None):
        runs = self.runs
        if restart is not None:
            return runs[restart].text() if restart < len(runs) else ""
        return "\n".join(r.text() for r in runs)
