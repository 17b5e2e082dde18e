"""Cluster DNS: dnsmasq in its own namespace on the bridge, authoritative for the cluster
domain (unknown names there are NXDOMAIN), no upstream servers (anything else is REFUSED:
no query ever leaves), records from a hosts file re-read on SIGHUP; every change waits for
dnsmasq's "read" log line, so a record is served (or gone) once the change returns.

The records (what CoreDNS serves for headless Services) come from the cluster; a test can
withhold a name (NXDOMAIN although the pod exists), publish it later, or add its own.
`query` is a small stdlib DNS client used to wait until dnsmasq answers what it should.
"""
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time

from . import netns

RCODES = {0: "NOERROR", 2: "SERVFAIL", 3: "NXDOMAIN", 5: "REFUSED"}


def query(server, name, timeout=1.0):
    """One A query over UDP: (rcode name, [addresses])."""
    qid = random.randrange(65536)
    packet = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    packet += b"".join(bytes([len(p)]) + p.encode() for p in name.rstrip(".").split(".")) + b"\0"
    packet += struct.pack(">HH", 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.connect((server, 53))  # connected: "port unreachable" comes back as an error at once
        s.send(packet)
        while True:
            data = s.recv(4096)
            if struct.unpack(">H", data[:2])[0] == qid:
                break
    flags, qd, an = struct.unpack(">HHH", data[2:8])
    pos = 12
    for _ in range(qd):
        pos = _skip_name(data, pos) + 4
    addrs = []
    for _ in range(an):
        pos = _skip_name(data, pos)
        rtype, _, _, rdlen = struct.unpack(">HHIH", data[pos:pos + 10])
        pos += 10
        if rtype == 1 and rdlen == 4:
            addrs.append(socket.inet_ntoa(data[pos:pos + 4]))
        pos += rdlen
    return RCODES.get(flags & 0xF, str(flags & 0xF)), sorted(addrs)


def _skip_name(data, pos):
    while True:
        length = data[pos]
        if length == 0:
            return pos + 1
        if length & 0xC0 == 0xC0:
            return pos + 2
        pos += 1 + length


def service_records(services, pods, namespace, domain):
    """What CoreDNS serves for headless Services: `<svc>.<ns>.svc.<domain>` with every
    selected pod's IP, and `<hostname>.<svc>.<ns>.svc.<domain>` for pods whose subdomain is
    the Service; only ready pods unless publishNotReadyAddresses. A pod without a sandbox
    (not started, finished, gone) has none."""
    records = {}
    for svc in services:
        sel = svc["spec"].get("selector") or {}
        everyone = bool(svc["spec"].get("publishNotReadyAddresses"))
        name = svc["metadata"]["name"]
        svc_fqdn = f"{name}.{namespace}.svc.{domain}"
        for pod in pods:
            if not pod.ip or pod.gone or pod.finished or not pod.netns:
                continue
            if any(pod.labels.get(k) != v for k, v in sel.items()):
                continue
            if not (everyone or pod.ready):
                continue
            records.setdefault(svc_fqdn, []).append(pod.ip)
            if pod.subdomain == name and pod.hostname:
                records[f"{pod.hostname}.{svc_fqdn}"] = [pod.ip]
    return records


class ClusterDNS:
    def __init__(self, network, state_dir, domain, run_in_node):
        self.network = network
        self.domain = domain
        self.dir = os.path.join(state_dir, "dns")
        self.hosts = os.path.join(self.dir, "hosts")
        self.log = os.path.join(self.dir, "queries.log")
        self._run_in_node = run_in_node
        self._records = {}  # from the cluster: name -> [ip]
        self._extra = {}  # added by the test
        self._withheld = set()
        self._written = None
        self._lock = threading.Lock()
        self.proc = None

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        self._write()
        ns = self.network.add_endpoint("dns", netns.DNS_IP, default_route=False)
        reverse = [f"--local=/{octet}.198.in-addr.arpa/" for octet in (18, 19)]
        dnsmasq = shutil.which("dnsmasq") or "/usr/sbin/dnsmasq"
        # setpriv --pdeathsig: dnsmasq dies with the harness even when teardown cannot run.
        self.proc = subprocess.Popen(
            ["setpriv", "--pdeathsig", "KILL", "ip", "netns", "exec", ns, dnsmasq,
             "--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv", "--no-hosts",
             "--no-poll", "--bind-dynamic", f"--listen-address={netns.DNS_IP}", "--port=53",
             f"--local=/{self.domain}/", *reverse, "--domain-needed",
             f"--addn-hosts={self.hosts}", "--log-queries", f"--log-facility={self.log}",
             "--user=root", "--group=root"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True)
        probe = f"kube-dns.kube-system.svc.{self.domain}"
        deadline = time.monotonic() + 10
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"dnsmasq exited {self.proc.returncode}: "
                                   f"{self.proc.stderr.read().decode().strip()}")
            try:
                if self.resolve(probe, timeout=0.2)[0] == "NOERROR":
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("dnsmasq did not answer within 10 s")
            time.sleep(0.02)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def _base_records(self):
        return {f"kube-dns.kube-system.svc.{self.domain}": [netns.DNS_IP],
                f"kubernetes.default.svc.{self.domain}": [netns.NODE_IP]}

    def _hidden(self, name):
        return name in self._withheld or name.split(".")[0] in self._withheld

    def _write(self):
        with self._lock:
            merged = self._base_records()
            merged.update({n: ips for n, ips in self._records.items() if not self._hidden(n)})
            for n, ips in self._extra.items():
                merged.setdefault(n, []).extend(ips)
            text = "".join(f"{ip}\t{n}\n" for n in sorted(merged) for ip in sorted(set(merged[n])))
            if text == self._written:
                return False
            tmp = self.hosts + ".tmp"
            with open(tmp, "w") as f:
                f.write(text)
            os.rename(tmp, self.hosts)
            self._written = text
            if self.proc and self.proc.poll() is None:
                self._reload()
        return True

    def _reload(self):
        """SIGHUP, then wait until dnsmasq says it re-read the file: a change is served
        when this returns (what the harness does next may depend on it)."""
        start = os.path.getsize(self.log) if os.path.exists(self.log) else 0
        self.proc.send_signal(signal.SIGHUP)
        needle = f"read {self.hosts} - ".encode()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with open(self.log, "rb") as f:
                f.seek(start)
                if needle in f.read():
                    return
            time.sleep(0.002)
        raise RuntimeError(f"dnsmasq did not re-read {self.hosts} within 5 s")

    # --- called by the cluster when pods or their readiness change
    def set_records(self, records):
        self._records = {n: list(ips) for n, ips in records.items()}
        self._write()

    # --- the test's API
    def records(self):
        """What dnsmasq serves now: {name: [ip, ...]}."""
        out = {}
        for line in (self._written or "").splitlines():
            ip, name = line.split("\t")
            out.setdefault(name, []).append(ip)
        return out

    def withhold(self, name):
        """Hides a name (a full name, or a pod hostname for its record) until `publish`."""
        self._withheld.add(name)
        self._write()

    def publish(self, name, wait=True):
        self._withheld.discard(name)
        self._write()
        if wait:
            full = next((n for n in self._records if n == name or n.split(".")[0] == name), None)
            if full:
                self.wait(full, present=True)

    def add(self, name, ip):
        self._extra.setdefault(name, []).append(ip)
        self._write()
        self.wait(name, present=True)

    def remove(self, name):
        self._extra.pop(name, None)
        self._write()

    def reload(self):
        self._written = None
        self._write()

    def resolve(self, name, timeout=1.0):
        """(rcode, [ip]) as a pod would get it from the cluster DNS, asked from the node."""
        return self._run_in_node(lambda: query(netns.DNS_IP, name, timeout))

    def wait(self, name, present=True, timeout=5.0):
        deadline = time.monotonic() + timeout
        while True:
            rcode, ips = self.resolve(name)
            if (rcode == "NOERROR" and bool(ips)) == present:
                return ips
            if time.monotonic() > deadline:
                raise TimeoutError(f"DNS: {name} still {rcode} {ips} after {timeout} s")
            time.sleep(0.02)
