"""What the kubelet and the runtime make of a pod's container: its environment, argv, the
files the kubelet writes for it (/etc/hosts, /etc/resolv.conf, /etc/hostname) and its mounts.

Written from the Kubernetes documentation: env entries in order, each value expanded with
the service variables and the entries before it; command and args expanded with the whole
list; image environment (PATH...) underneath, overridden by the pod's; HOSTNAME from the
runtime; the kubelet-managed hosts file with the pod's FQDN line when it has a subdomain.
"""
import math
import os

from .expand import expand

IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
JOB_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"


class ConfigError(Exception):
    """A pod the kubelet would not start (CreateContainerConfigError)."""


def service_env(api_ip):
    # The `kubernetes` Service's variables, which every container gets (service links).
    # Nothing listens on api_ip: raylaunch never calls the API server.
    return [("KUBERNETES_SERVICE_HOST", api_ip), ("KUBERNETES_SERVICE_PORT", "443"),
            ("KUBERNETES_SERVICE_PORT_HTTPS", "443"), ("KUBERNETES_PORT", f"tcp://{api_ip}:443"),
            ("KUBERNETES_PORT_443_TCP", f"tcp://{api_ip}:443"),
            ("KUBERNETES_PORT_443_TCP_PROTO", "tcp"), ("KUBERNETES_PORT_443_TCP_PORT", "443"),
            ("KUBERNETES_PORT_443_TCP_ADDR", api_ip)]


def field_ref(pod, path, node):
    meta = pod["metadata"]
    for prefix, key in (("metadata.labels['", "labels"), ("metadata.annotations['", "annotations")):
        if path.startswith(prefix) and path.endswith("']"):
            return meta.get(key, {}).get(path[len(prefix):-2], "")
    simple = {
        "metadata.name": meta["name"], "metadata.namespace": meta["namespace"],
        "metadata.uid": meta["uid"], "spec.nodeName": node["name"],
        "spec.serviceAccountName": pod["spec"].get("serviceAccountName", "default"),
        "status.hostIP": node["ip"], "status.hostIPs": node["ip"],
        "status.podIP": pod["status"]["podIP"], "status.podIPs": pod["status"]["podIP"],
    }
    if path not in simple:
        raise ConfigError(f"fieldRef {path!r} is not supported by the harness")
    return simple[path]


def parse_quantity(q):
    """A Kubernetes quantity ("90", "500m", "1000Gi", "1e3") as a float."""
    q = str(q)
    suffixes = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
                "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
                "P": 1e15, "E": 1e18}
    for s in sorted(suffixes, key=len, reverse=True):
        if q.endswith(s):
            return float(q[:-len(s)]) * suffixes[s]
    return float(q)


def resource_ref(container, ref):
    res = ref["resource"]
    kind, _, name = res.partition(".")
    value = container.get("resources", {}).get(kind, {}).get(name)
    if value is None and kind == "requests":
        value = container.get("resources", {}).get("limits", {}).get(name)
    if value is None:
        # No limit: the node's allocatable, here the machine's.
        value = os.cpu_count() if name == "cpu" else os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    divisor = parse_quantity(ref.get("divisor", "1"))
    return str(math.ceil(parse_quantity(value) / divisor))


def lookup(store, kind, ref):
    data = store.get(ref["name"])
    if data is None or ref["key"] not in data:
        if ref.get("optional"):
            return None
        raise ConfigError(f"{kind} {ref['name']!r} key {ref.get('key')!r} not found "
                          f"(pass it to the harness with {kind}s=...)")
    return data[ref["key"]]


def container_env(pod, container, node, secrets, config_maps):
    """The kubelet's list of (name, value): service variables, envFrom, then env in order."""
    defined = dict(service_env(node["api_ip"]))
    result = list(service_env(node["api_ip"]))

    def put(name, value):
        defined[name] = value
        result[:] = [(n, v) for n, v in result if n != name] + [(name, value)]

    for src in container.get("envFrom", []):
        store, ref = (secrets, src["secretRef"]) if "secretRef" in src else (config_maps, src["configMapRef"])
        data = store.get(ref["name"])
        if data is None and not ref.get("optional"):
            raise ConfigError(f"envFrom {ref['name']!r} not found")
        for k, v in (data or {}).items():
            put(src.get("prefix", "") + k, v)
    for e in container.get("env", []):
        if "valueFrom" not in e:
            put(e["name"], expand(e.get("value", ""), defined))
            continue
        vf = e["valueFrom"]
        if "fieldRef" in vf:
            value = field_ref(pod, vf["fieldRef"]["fieldPath"], node)
        elif "resourceFieldRef" in vf:
            value = resource_ref(container, vf["resourceFieldRef"])
        elif "secretKeyRef" in vf:
            value = lookup(secrets, "secret", vf["secretKeyRef"])
        elif "configMapKeyRef" in vf:
            value = lookup(config_maps, "configMap", vf["configMapKeyRef"])
        else:
            raise ConfigError(f"env {e['name']}: unsupported valueFrom {sorted(vf)}")
        if value is not None:
            put(e["name"], value)
    return result


def runtime_env(kubelet_env, image_env, hostname):
    """What the process gets: image env, HOSTNAME, then the kubelet's list on top."""
    env = {"PATH": IMAGE_PATH}
    env.update(image_env)
    env["HOSTNAME"] = hostname
    env.update(kubelet_env)
    env.setdefault("HOME", "/root")
    return env


def argv(container, kubelet_env):
    defined = dict(kubelet_env)
    words = list(container.get("command") or []) + list(container.get("args") or [])
    if not words:
        raise ConfigError("container has no command: the harness has no image ENTRYPOINT to fall back to")
    return [expand(str(w), defined) for w in words]


def pod_fqdn(pod, domain):
    spec = pod["spec"]
    host = spec["hostname"]
    sub = spec.get("subdomain")
    return f"{host}.{sub}.{pod['metadata']['namespace']}.svc.{domain}" if sub else None


def hosts_file(pod, domain):
    spec = pod["spec"]
    lines = ["# Kubernetes-managed hosts file.", "127.0.0.1\tlocalhost",
             "::1\tlocalhost ip6-localhost ip6-loopback", "fe00::0\tip6-localnet",
             "fe00::0\tip6-mcastprefix", "fe00::1\tip6-allnodes", "fe00::2\tip6-allrouters"]
    fqdn = pod_fqdn(pod, domain)
    ip = pod["status"]["podIP"]
    lines.append(f"{ip}\t{fqdn}\t{spec['hostname']}" if fqdn else f"{ip}\t{spec['hostname']}")
    aliases = spec.get("hostAliases") or []
    if aliases:
        lines += ["", "# Entries added by HostAliases."]
        lines += ["\t".join([a["ip"]] + a.get("hostnames", [])) for a in aliases]
    return "\n".join(lines) + "\n"


def resolv_conf(pod, domain, nameserver):
    ns = pod["metadata"]["namespace"]
    search = [f"{ns}.svc.{domain}", f"svc.{domain}", domain]
    servers = [nameserver]
    options = ["ndots:5"]
    cfg = pod["spec"].get("dnsConfig") or {}
    search += [s for s in cfg.get("searches", []) if s not in search]
    servers += cfg.get("nameservers", [])
    for o in cfg.get("options", []):
        options = [x for x in options if x.split(":")[0] != o["name"]]
        options.append(f"{o['name']}:{o['value']}" if "value" in o else o["name"])
    return (f"search {' '.join(search)}\n" + "".join(f"nameserver {s}\n" for s in servers)
            + f"options {' '.join(options)}\n")


# Linux capability numbers (linux/capability.h), in order.
CAPS = ("CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE "
        "NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO "
        "SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME "
        "SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG "
        "WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF CHECKPOINT_RESTORE").split()
# containerd's default set for a container process.
DEFAULT_CAPS = ("CHOWN DAC_OVERRIDE FSETID FOWNER MKNOD NET_RAW SETGID SETUID SETFCAP SETPCAP "
                "NET_BIND_SERVICE SYS_CHROOT KILL AUDIT_WRITE").split()


def _cap_numbers(names, where):
    out = set()
    for n in names:
        n = n.upper().removeprefix("CAP_")
        if n == "ALL":
            out |= set(range(len(CAPS)))
        elif n in CAPS:
            out.add(CAPS.index(n))
        else:
            raise ConfigError(f"{where}: unknown capability {n!r}")
    return out


def security(pod_spec, container):
    """The runtime's process settings from the pod's and the container's securityContext:
    capabilities (default set, minus drop, plus add; all when privileged), no_new_privs
    (allowPrivilegeEscalation: false), uid/gid (runAsUser/runAsGroup), read-only root."""
    psc = pod_spec.get("securityContext") or {}
    csc = container.get("securityContext") or {}
    pick = lambda key: csc.get(key, psc.get(key))
    caps = _cap_numbers(DEFAULT_CAPS, "default")
    if csc.get("privileged"):
        caps = set(range(len(CAPS)))
    else:
        c = csc.get("capabilities") or {}
        caps -= _cap_numbers(c.get("drop", []), "capabilities.drop")
        caps |= _cap_numbers(c.get("add", []), "capabilities.add")
    uid, gid = pick("runAsUser"), pick("runAsGroup")
    if pick("runAsNonRoot") and not uid:
        raise ConfigError("container has runAsNonRoot and image will run as root "
                          "(the harness's image has no USER: set runAsUser)")
    return {"caps": sorted(caps), "no_new_privs": csc.get("allowPrivilegeEscalation") is False,
            "uid": uid, "gid": gid if gid is not None else uid,
            "readonly_root": bool(csc.get("readOnlyRootFilesystem"))}


def hostname(pod, domain):
    # setHostnameAsFQDN: the kernel hostname is the FQDN (the hosts file keeps both).
    fqdn = pod_fqdn(pod, domain)
    return fqdn if pod["spec"].get("setHostnameAsFQDN") and fqdn else pod["spec"]["hostname"]
