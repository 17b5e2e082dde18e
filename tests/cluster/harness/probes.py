"""Probes as the kubelet runs them, one worker thread per probe and container start.

From the Kubernetes documentation and the kubelet's prober (`pkg/probe/http/http.go` for the
HTTP details): a worker probes every periodSeconds, not before initialDelaySeconds after
the container started; liveness and readiness are not run until the startup probe has
succeeded; a probe taking longer than timeoutSeconds is a failure. httpGet: a new TCP
connection per probe from the node (here: the node namespace) to the pod IP, HTTP/1.1,
`Connection: close`, `User-Agent: kube-probe/1.32`, `Accept: */*`, success for a status
from 200 to 399. exec: a new process inside the container's namespaces with the container's
environment; exit 0 is success. tcpSocket: the connection opens. What a result means
(thresholds, restarts, readiness) is decided by the kubelet on its loop.
"""
import socket
import threading
import time

from . import netns

KUBE_VERSION = "1.32"
BODY_LIMIT = 10 * 1024
DEFAULTS = {"initialDelaySeconds": 0, "periodSeconds": 10, "timeoutSeconds": 1,
            "successThreshold": 1, "failureThreshold": 3}


class ProbeResult:
    __slots__ = ("t", "pod", "restart", "kind", "ok", "outcome", "detail", "duration")

    def __init__(self, t, pod, restart, kind, ok, outcome, detail, duration):
        self.t, self.pod, self.restart, self.kind = t, pod, restart, kind
        self.ok, self.outcome, self.detail, self.duration = ok, outcome, detail, duration

    def __repr__(self):
        return (f"{self.t:8.3f} {self.pod}#{self.restart} {self.kind}: {self.outcome}"
                f" ({self.duration * 1000:.0f} ms) {self.detail[:120]!r}")


class Probe:
    def __init__(self, kind, spec):
        self.kind = kind
        self.spec = spec
        merged = dict(DEFAULTS)
        merged.update({k: v for k, v in spec.items() if k in DEFAULTS})
        self.initial_delay = float(merged["initialDelaySeconds"])
        self.period = float(merged["periodSeconds"])
        self.timeout = float(merged["timeoutSeconds"])
        self.success_threshold = int(merged["successThreshold"])
        self.failure_threshold = int(merged["failureThreshold"])
        self.grace = spec.get("terminationGracePeriodSeconds")


def _port(value, container):
    if isinstance(value, int) or str(value).isdigit():
        return int(value)
    for p in container.get("ports", []):
        if p.get("name") == value:
            return int(p["containerPort"])
    raise ValueError(f"named port {value!r} not found in the container's ports")


def http_get(host, port, path, timeout, headers=()):
    """One kubelet-style HTTP probe: (ok, outcome, detail)."""
    deadline = time.monotonic() + timeout
    hdrs = {"Host": f"{host}:{port}", "User-Agent": f"kube-probe/{KUBE_VERSION}", "Accept": "*/*",
            "Connection": "close"}
    for h in headers:
        hdrs[h["name"]] = h["value"]
    request = f"GET {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n"
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(request.encode())
            data = b""
            while len(data) < BODY_LIMIT + 4096:
                s.settimeout(max(0.001, deadline - time.monotonic()))
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
    except socket.timeout:
        return False, "timeout", f"GET {path}: no answer within {timeout:g} s"
    except OSError as e:
        return False, "failure", f"GET {path}: {e.strerror or e}"
    head, _, body = data.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].decode(errors="replace")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        return False, "failure", f"GET {path}: malformed response {status_line!r}"
    code = int(parts[1])
    ok = 200 <= code < 400
    return ok, "success" if ok else "failure", f"{code} {body[:BODY_LIMIT].decode(errors='replace')}"


def tcp_connect(host, port, timeout):
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True, "success", f"connected to {host}:{port}"
    except socket.timeout:
        return False, "timeout", f"connect {host}:{port}: timeout"
    except OSError as e:
        return False, "failure", f"connect {host}:{port}: {e.strerror or e}"


def run_probe(probe, pod_ip, container, run):
    s = probe.spec
    if "httpGet" in s:
        g = s["httpGet"]
        if g.get("scheme", "HTTP").upper() != "HTTP":
            return False, "failure", "httpGet scheme HTTPS is not supported by the harness"
        return http_get(g.get("host") or pod_ip, _port(g["port"], container), g.get("path", "/"),
                        probe.timeout, g.get("httpHeaders", []))
    if "tcpSocket" in s:
        t = s["tcpSocket"]
        return tcp_connect(t.get("host") or pod_ip, _port(t["port"], container), probe.timeout)
    if "exec" in s:
        code, out = run.exec(s["exec"]["command"], probe.timeout)
        if code is None:
            return False, "timeout", f"timed out after {probe.timeout:g} s: {out.strip()}"
        return code == 0, "success" if code == 0 else "failure", f"exit {code}: {out.strip()}"
    return False, "failure", f"unsupported probe handler {sorted(set(s) - set(DEFAULTS))}"


class ProbeWorker(threading.Thread):
    """Probes one container start until stopped; posts each ProbeResult to `report`."""

    def __init__(self, probe, pod, run, container, node_ns, clock, report):
        super().__init__(name=f"probe-{pod.name}-{probe.kind}", daemon=True)
        self.probe, self.pod, self.run_, self.container = probe, pod, run, container
        self.node_ns, self.clock, self.report = node_ns, clock, report
        self.stopped = threading.Event()

    def stop(self):
        self.stopped.set()

    def run(self):
        netns.enter_netns(self.node_ns)  # the kubelet probes from the node
        start = self.run_.started_mono
        if self.stopped.wait(max(0.0, start + self.probe.initial_delay - time.monotonic())):
            return
        while not self.stopped.is_set():
            tick = time.monotonic()
            # Liveness and readiness wait for the startup probe; the tick still passes.
            if self.probe.kind == "startup" or self.run_.started:
                t = self.clock()
                ok, outcome, detail = run_probe(self.probe, self.pod.ip, self.container, self.run_)
                if self.stopped.is_set():
                    return
                self.report(ProbeResult(t, self.pod.name, self.run_.restart, self.probe.kind, ok,
                                        outcome, detail, time.monotonic() - tick))
                if self.probe.kind == "startup" and ok:
                    return
            self.stopped.wait(max(0.0, tick + self.probe.period - time.monotonic()))
