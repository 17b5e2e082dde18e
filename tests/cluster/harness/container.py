"""One start of a container (what `kubectl get pod` counts in RESTARTS): the shim process,
the container's log, its PID 1 on the host, its exit status and termination message.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading

SHIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shim.py")
PYTHON = "/usr/bin/python3"
MESSAGE_LIMIT = 4096  # bytes of a termination message the kubelet keeps
FALLBACK_LINES, FALLBACK_BYTES = 80, 2048  # FallbackToLogsOnError: the log's tail
OUTPUT_LIMIT = 10 * 1024


class LogLine:
    __slots__ = ("t", "stream", "text")

    def __init__(self, t, stream, text):
        self.t, self.stream, self.text = t, stream, text

    def __repr__(self):
        return f"{self.t:8.3f} {self.stream} {self.text}"


class ContainerRun:
    """Created and driven by the kubelet on the loop thread; its reader threads only append
    log lines and post status changes to the loop."""

    def __init__(self, restart, runtime_spec, run_dir, message_path, message_policy, clock):
        self.restart = restart
        self.spec = runtime_spec
        self.dir = run_dir
        self.message_file = os.path.join(run_dir, "termination-log")
        self.message_path = message_path
        self.message_policy = message_policy
        self.clock = clock
        self.log = []
        self.host_pid = None
        self.started_at = None
        self.started_mono = None
        self.finished_at = None
        self.exit_code = None
        self.signal = None
        self.reason = None
        self.message = None
        self.warnings = []
        self.started = False  # startup probe passed (or there is none)
        self.ready = False
        self.killed_by = None
        self.term_pending = False  # the kubelet's SIGTERM, due once the start is reported
        self.start_error = None  # why the kubelet stopped it, when it did
        self.proc = None
        self._readers = []

    # --- start and status (the loop thread)
    def start(self, on_line, on_status):
        os.makedirs(self.dir, exist_ok=True)
        open(self.message_file, "w").close()
        os.chmod(self.message_file, 0o666)  # writable by a container running as any user
        spec = dict(self.spec)
        spec["binds"] = list(spec["binds"]) + [{"src": self.message_file, "dst": self.message_path}]
        spec_path = os.path.join(self.dir, "spec.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f, indent=1)
        status_r, status_w = os.pipe()
        self.proc = subprocess.Popen([PYTHON, SHIM, "init", spec_path, str(status_w)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, pass_fds=[status_w],
                                     start_new_session=True)
        os.close(status_w)
        for stream, pipe in (("stdout", self.proc.stdout), ("stderr", self.proc.stderr)):
            t = threading.Thread(target=self._read_log, args=(stream, pipe, on_line), daemon=True)
            t.start()
            self._readers.append(t)
        threading.Thread(target=self._read_status, args=(status_r, on_status), daemon=True).start()

    def _read_log(self, stream, pipe, on_line):
        for raw in iter(pipe.readline, b""):
            line = LogLine(self.clock(), stream, raw.decode(errors="replace").rstrip("\n"))
            self.log.append(line)
            on_line(self, line)

    def _read_status(self, fd, on_status):
        with os.fdopen(fd, "rb") as f:
            for raw in f:
                t = self.clock()  # when it happened, not when the loop gets to it
                word, _, rest = raw.decode(errors="replace").rstrip("\n").partition(" ")
                if word == "exit":
                    for r in self._readers:
                        r.join(5)  # the log is complete before anyone sees the exit
                on_status(self, t, word, rest)
        if self.proc.wait() and self.exit_code is None:
            on_status(self, self.clock(), "lost", f"the shim exited {self.proc.returncode} without a status")

    def send(self, sig):
        """Sends a signal to PID 1 (through the shim, which cannot confuse it with another
        process: it is the one that reaps it)."""
        try:
            self.proc.stdin.write(f"signal {int(sig)}\n".encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def abandon(self):
        """Teardown: closing the shim's stdin makes it SIGKILL PID 1 (the PID namespace goes
        with it)."""
        try:
            self.proc.stdin.close()
        except (BrokenPipeError, ValueError, OSError):
            pass

    def finish(self, code, sig, t=None):
        self.exit_code = code
        self.signal = sig or None
        self.finished_at = self.clock() if t is None else t
        self.reason = "Completed" if code == 0 else "Error"
        self.message = self._termination_message()

    def _termination_message(self):
        try:
            with open(self.message_file, "rb") as f:
                data = f.read(MESSAGE_LIMIT)
        except OSError:
            data = b""
        if not data and self.exit_code and self.message_policy == "FallbackToLogsOnError":
            tail = "\n".join(line.text for line in self.log[-FALLBACK_LINES:])
            data = tail.encode()[-FALLBACK_BYTES:]
        return data.decode(errors="replace")

    @property
    def running(self):
        return self.started_at is not None and self.finished_at is None

    # --- exec in the container (exec probes, tests' `kubectl exec`)
    def exec(self, argv, timeout, env=None):
        """(exit code, or None on timeout; combined output)."""
        if self.host_pid is None or not self.running:
            return 126, "container not running"
        spec = {k: self.spec.get(k) for k in ("cwd", "caps", "uid", "gid", "no_new_privs")}
        spec.update({"pid": self.host_pid, "argv": list(argv),
                     "env": env if env is not None else self.spec["env"]})
        # Output to a file, not a pipe: what the exec'd process leaves behind may hold it
        # open, and the result is due when the process itself exits (as with ExecSync).
        with tempfile.TemporaryFile() as out:
            proc = subprocess.Popen([PYTHON, SHIM, "exec", "-"], stdin=subprocess.PIPE,
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            proc.stdin.write(json.dumps(spec).encode())
            proc.stdin.close()
            try:
                code = proc.wait(timeout)
            except subprocess.TimeoutExpired:
                code = None
                proc.terminate()  # the shim kills and reaps the exec'd process
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            out.seek(0)
            return code, out.read(OUTPUT_LIMIT).decode(errors="replace")

    def text(self, stream=None):
        return "\n".join(line.text for line in self.log if stream in (None, line.stream))


def debug(msg):
    if os.environ.get("RLC_DEBUG"):
        sys.stderr.write(f"[rlc] {msg}\n")
