"""Rules for a raylaunch container's life: probes on the health endpoint, ports, the time SIGTERM
needs, and the security context.

The `raylaunch run` contract (settings and defaults): RAYLAUNCH_HEALTH_PORT serves /livez,
/readyz and /metrics; RAYLAUNCH_METRICS_EXPORT_PORT (8080) goes to `ray start
--metrics-export-port`; on SIGTERM raylaunch waits RAYLAUNCH_TERM_GRACE (30s) for the command,
then RAYLAUNCH_RAY_STOP_GRACE (15s) for Ray.
"""
from .. import durations
from ..objects import as_int, container_port, dig, env_value, int_field

PROBES = ("startupProbe", "livenessProbe", "readinessProbe")
PROBE_PATH = {"startupProbe": "/livez", "livenessProbe": "/livez", "readinessProbe": "/readyz"}
# Liveness must tolerate minutes of failures: restarting a head ends the run (KubeRay allows 600 s).
MIN_LIVENESS_WINDOW_S = 300
# `ray start` after the join timeout, for an exec liveness probe (see probe_timing_rules).
STARTUP_MARGIN_S = 120
# After both graces: `ray stop` as a fallback, SIGKILL, the termination message, the exit.
SIGTERM_MARGIN_S = 15
# Ray's own listening ports the health endpoint must not take (dashboard, client, dashboard agent).
RAY_FIXED_PORTS = {8265: "the dashboard", 10001: "the Ray client", 52365: "the dashboard agent"}
# The one capability EFA needs: registering memory with the device pins it, and the kernel caps
# pinned pages at RLIMIT_MEMLOCK unless the process has CAP_IPC_LOCK (Linux
# drivers/infiniband/core/umem.c). Kubernetes has no ulimit field, so the pod inherits the
# container runtime's limit.
EFA_CAPABILITIES = {"IPC_LOCK"}


def probe_timing_rules(here, container, multi_node):
    problems = []
    for probe in PROBES:
        timeout = int_field(container.get(probe), "timeoutSeconds", 1)
        if probe in container and timeout is not None and timeout < 2:
            problems.append(f"rule probe-timing: {here}.{probe}.timeoutSeconds must be >= 2 (raylaunch allows its "
                            "GCS/raylet check up to 1 s; the kubelet's default of 1 s leaves no margin)")
    liveness = container.get("livenessProbe")
    if isinstance(liveness, dict):
        period, threshold = int_field(liveness, "periodSeconds", 10), int_field(liveness, "failureThreshold", 3)
        if period is not None and threshold is not None and period * threshold < MIN_LIVENESS_WINDOW_S:
            problems.append(f"rule probe-timing: {here}.livenessProbe restarts the container after {period * threshold} s "
                            f"of failures (periodSeconds x failureThreshold) < {MIN_LIVENESS_WINDOW_S} s: a GCS slow for "
                            "a while, or a node cut off from the API server for minutes, would restart the head and "
                            "end the run (KubeRay allows 600 s)")
    join_text = env_value(container, "RAYLAUNCH_JOIN_TIMEOUT", "300s")
    join = durations.parse_seconds(join_text) if join_text is not None else None
    if join_text is not None and join is None:
        problems.append(f'rule probe-timing: {here} RAYLAUNCH_JOIN_TIMEOUT "{join_text}" is not {durations.EXPECTED}')
    # Only an exec liveness probe (`raylaunch probe liveness`, which asks the GCS or the raylet
    # itself) fails while a pod waits for the head or at the barrier, so only then must a
    # startupProbe hold liveness off for the join timeout. The httpGet /livez answers 200 in every
    # start phase (launcher/health/health_service.cpp HealthService::livez): its startupProbe
    # passes within seconds, and sizing it to the join timeout buys nothing.
    if not multi_node or join is None or dig(container, "livenessProbe", "exec") is None:
        return problems
    startup = container.get("startupProbe")
    if not startup:
        problems.append(f"rule probe-timing: {here} needs a startupProbe covering RAYLAUNCH_JOIN_TIMEOUT "
                        f"({join} s) + {STARTUP_MARGIN_S} s: its exec liveness probe fails while the pod waits at the "
                        "barrier (or use the httpGet /livez, which does not)")
        return problems
    period, threshold = int_field(startup, "periodSeconds", 10), int_field(startup, "failureThreshold", 3)
    if period is not None and threshold is not None and period * threshold < join + STARTUP_MARGIN_S:
        problems.append(f"rule probe-timing: {here}.startupProbe allows {period * threshold} s (periodSeconds x "
                        f"failureThreshold) < RAYLAUNCH_JOIN_TIMEOUT {join} s + {STARTUP_MARGIN_S} s, and its exec "
                        "liveness probe fails while the pod waits at the barrier")
    return problems


def container_rules(here, pod_spec, container):
    return (health_rules(here, container) + metrics_rules(here, container)
            + termination_grace_rules(here, pod_spec, container) + security_rules(here, pod_spec, container))


def port_setting(container, name, default):
    """(text, number): the number is None when the text is not a port; text None = from valueFrom."""
    text = env_value(container, name, default)
    number = as_int(text) if text is not None else None
    return text, number if number is not None and 0 <= number <= 65535 else None


def declared_ports(container):
    return {p.get("containerPort"): p.get("name") for p in container.get("ports") or [] if isinstance(p, dict)}


def health_rules(here, container):
    problems = []
    text, health = port_setting(container, "RAYLAUNCH_HEALTH_PORT", "0")
    for probe in PROBES:
        http = dig(container, probe, "httpGet")
        if not isinstance(http, dict):
            continue
        port = container_port(container, http.get("port"))
        if text is not None and not health:
            problems.append(f"rule health-probes: {here}.{probe} is an httpGet probe, but RAYLAUNCH_HEALTH_PORT is "
                            f'"{text}": raylaunch serves /livez and /readyz only on a port > 0 (the manifests use 8081)')
        elif health and port != health:
            problems.append(f"rule health-probes: {here}.{probe}.httpGet.port {http.get('port')} != "
                            f"RAYLAUNCH_HEALTH_PORT {health}")
        if http.get("path", "/") != PROBE_PATH[probe]:
            problems.append(f"rule health-probes: {here}.{probe}.httpGet.path must be {PROBE_PATH[probe]} "
                            f"(got {http.get('path', '/')})")
        if http.get("scheme", "HTTP") != "HTTP":
            problems.append(f"rule health-probes: {here}.{probe}.httpGet.scheme must be HTTP: raylaunch serves "
                            "plain HTTP")
    if health and health not in declared_ports(container):
        problems.append(f"rule health-probes: {here} serves its health endpoint on {health} but does not declare "
                        "it under ports (name it health: probes and metrics scrapers find it by that name)")
    return problems


def metrics_rules(here, container):
    problems = []
    text, metrics = port_setting(container, "RAYLAUNCH_METRICS_EXPORT_PORT", "8080")
    declared = declared_ports(container)
    for port, name in declared.items():
        if name == "metrics" and text is not None and port != metrics:
            problems.append(f"rule metrics-port: {here} declares port {port} as metrics, but Ray exports its metrics "
                            f'on RAYLAUNCH_METRICS_EXPORT_PORT "{text}": the declared port would serve nothing')
    _, health = port_setting(container, "RAYLAUNCH_HEALTH_PORT", "0")
    if health:
        _, ray_port = port_setting(container, "RAYLAUNCH_RAY_PORT", "6379")
        _, node_manager = port_setting(container, "RAYLAUNCH_NODE_MANAGER_PORT", "6380")
        taken = dict(RAY_FIXED_PORTS)
        taken.update({ray_port: "the GCS (RAYLAUNCH_RAY_PORT)", node_manager: "the raylet (RAYLAUNCH_NODE_MANAGER_PORT)",
                      metrics: "Ray's metrics (RAYLAUNCH_METRICS_EXPORT_PORT)"})
        if health in taken:
            problems.append(f"rule metrics-port: {here} RAYLAUNCH_HEALTH_PORT {health} is also the port of "
                            f"{taken[health]}; pick another (the manifests use 8081)")
    return problems


def termination_grace_rules(here, pod_spec, container):
    grace = int_field(pod_spec, "terminationGracePeriodSeconds", 30)
    needed = 0
    for name, default in (("RAYLAUNCH_TERM_GRACE", "30s"), ("RAYLAUNCH_RAY_STOP_GRACE", "15s")):
        text = env_value(container, name, default)
        if text is None:
            return []  # from a ConfigMap: cannot tell
        seconds = durations.parse_seconds(text)
        if seconds is None:
            return [f'rule termination-grace: {here} {name} "{text}" is not {durations.EXPECTED}']
        needed += seconds
    needed += SIGTERM_MARGIN_S
    if grace is not None and grace < needed:
        return [f"rule termination-grace: terminationGracePeriodSeconds {grace} < {needed} s = RAYLAUNCH_TERM_GRACE "
                f"+ RAYLAUNCH_RAY_STOP_GRACE + {SIGTERM_MARGIN_S} s ({here}): the kubelet's SIGKILL would cut the "
                "launch command's or Ray's shutdown short"]
    return []


def security_rules(here, pod_spec, container):
    problems = []
    seccomp = dig(container, "securityContext", "seccompProfile", "type") or \
        dig(pod_spec, "securityContext", "seccompProfile", "type")
    if seccomp not in ("RuntimeDefault", "Localhost"):
        problems.append(f"rule security-context: {here} needs seccompProfile type RuntimeDefault (pod or "
                        f"container securityContext; got {seccomp or 'none, i.e. Unconfined'})")
    context = container.get("securityContext") or {}
    if context.get("allowPrivilegeEscalation") is not False:
        problems.append(f"rule security-context: {here}.securityContext.allowPrivilegeEscalation must be false")
    if context.get("privileged") is True:
        problems.append(f"rule security-context: {here} must not be privileged (EFA and GPUs come from their "
                        "device plugins, not from host access)")
    capabilities = context.get("capabilities") or {}
    if "ALL" not in (capabilities.get("drop") or []):
        problems.append(f"rule security-context: {here}.securityContext.capabilities.drop must include ALL")
    added = {str(c).upper().removeprefix("CAP_") for c in capabilities.get("add") or []}
    efa = (as_int(dig(container, "resources", "limits", "vpc.amazonaws.com/efa", default=0)) or 0) > 0
    if added - EFA_CAPABILITIES:
        problems.append(f"rule security-context: {here} adds {', '.join(sorted(added - EFA_CAPABILITIES))}; "
                        "only IPC_LOCK is needed, and only with EFA devices")
    elif added and not efa:
        problems.append(f"rule security-context: {here} adds IPC_LOCK without EFA devices; drop it")
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if pod_spec.get(field) is True:
            problems.append(f"rule security-context: {here}'s pod sets {field}: true")
    return problems
