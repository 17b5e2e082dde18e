"""What a test changes in the pods the manifests describe, applied to each pod object before
the kubelet sees it. Everything defaults to what the manifests say.

- launch: the launch command (everything after the first `--` of command/args) is replaced;
  command/args: replace the container's command or args outright (self-tests);
- env: {NAME: value} replaces an entry in place (keeping its position, so $(VAR) expansion
  sees what the manifest order gives) or appends it; {NAME: None} removes it;
- probes: {"startup"|"liveness"|"readiness": {field: value} or None} merges into or drops
  the probe (e.g. {"readiness": {"httpGet": {...}, "exec": None}});
- time_scale: multiplies initialDelaySeconds, periodSeconds, terminationGracePeriodSeconds
  (pod and probe level), the kubelet's and Job controller's back-offs and the duration
  settings in `scaled_env`, keeping the manifests' proportions (the startupProbe covering
  the join timeout, the grace covering raylaunch's own). Probe timeouts are not scaled:
  they bound a real program's reply. Explicit env/probe values are taken as given.
"""
import copy
import re

HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
PROBES = {"startup": "startupProbe", "liveness": "livenessProbe", "readiness": "readinessProbe"}
SCALED_ENV = ("RAYLAUNCH_JOIN_TIMEOUT", "RAYLAUNCH_TERM_GRACE", "RAYLAUNCH_RAY_STOP_GRACE")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60000, "h": 3600000}


class OverrideError(Exception):
    pass


def parse_duration_ms(text):
    """raylaunch's duration syntax: 300, 300s, 5m, 1h, 1500ms, 1m30s."""
    text = str(text).strip()
    if re.fullmatch(r"\d+", text):
        return int(text) * 1000
    groups = re.findall(r"(\d+)(ms|s|m|h)", text)
    if not groups or "".join(n + u for n, u in groups) != text:
        raise OverrideError(f"not a duration: {text!r}")
    return sum(int(n) * _UNIT_MS[u] for n, u in groups)


def scale_duration(text, scale):
    return f"{max(1, round(parse_duration_ms(text) * scale))}ms"


def _merge(dst, patch):
    for k, v in patch.items():
        if v is None:
            dst.pop(k, None)
        elif isinstance(v, dict) and isinstance(dst.get(k), dict):
            _merge(dst[k], v)
        else:
            dst[k] = copy.deepcopy(v)


def replace_launch(container, launch):
    for field in ("command", "args"):
        words = container.get(field) or []
        if "--" in words:
            container[field] = words[:words.index("--") + 1] + list(launch)
            if field == "command":
                container.pop("args", None)
            return
    raise OverrideError("launch= needs a `--` in the container's command or args "
                        f"(command: {container.get('command')}, args: {container.get('args')})")


def set_env(container, env):
    entries = container.setdefault("env", [])
    for name, value in env.items():
        idx = next((i for i, e in enumerate(entries) if e["name"] == name), None)
        if value is None:
            if idx is not None:
                del entries[idx]
            continue
        entry = {"name": name, "value": str(value)}
        if idx is None:
            entries.append(entry)
        else:
            entries[idx] = entry


def scale_probe(probe, scale):
    for field in ("initialDelaySeconds", "periodSeconds", "terminationGracePeriodSeconds"):
        if field in probe:
            probe[field] = probe[field] * scale
    probe.setdefault("periodSeconds", 10 * scale)


class Overrides:
    def __init__(self, launch=None, command=None, args=None, env=None, probes=None,
                 time_scale=1.0, scaled_env=SCALED_ENV, grace=None, container="ray"):
        self.launch = launch
        self.command = command
        self.args = args
        self.env = env or {}
        self.probes = probes or {}
        self.time_scale = float(time_scale)
        self.scaled_env = scaled_env
        self.grace = grace
        self.container = container
        unknown = set(self.probes) - set(PROBES)
        if unknown:
            raise OverrideError(f"unknown probe kinds {sorted(unknown)}: use {sorted(PROBES)}")

    def scaled(self, seconds):
        return seconds * self.time_scale

    def apply(self, pod):
        spec = pod["spec"]
        containers = spec["containers"]
        c = next((c for c in containers if c["name"] == self.container), containers[0])
        if self.command is not None:
            c["command"] = list(self.command)
        if self.args is not None:
            c["args"] = list(self.args)
        if self.launch is not None:
            replace_launch(c, self.launch)
        if self.time_scale != 1.0:
            for e in c.get("env", []):
                if e["name"] in self.scaled_env and "value" in e:
                    e["value"] = scale_duration(e["value"], self.time_scale)
            for field in PROBES.values():
                if field in c:
                    scale_probe(c[field], self.time_scale)
            spec["terminationGracePeriodSeconds"] = self.scaled(spec.get("terminationGracePeriodSeconds", 30))
        set_env(c, self.env)
        for kind, patch in self.probes.items():
            field = PROBES[kind]
            if patch is None:
                c.pop(field, None)
                continue
            probe = c.setdefault(field, {})
            if any(h in patch for h in HANDLERS):
                for h in HANDLERS:  # a probe has one handler: a new one replaces the old
                    probe.pop(h, None)
            _merge(probe, patch)
        if self.grace is not None:
            spec["terminationGracePeriodSeconds"] = self.grace
        return pod
