"""Real Ray clusters for tests: the pinned releases (scripts/ray-venvs), in private namespaces.

A test calls `enter_namespaces()` first: it re-executes the test as PID 1 of new PID, mount and
network namespaces, so that every Ray process it starts dies with it (nothing reaches the host's
PID namespace, where `ray stop` or a stray raylet would hit other tests' clusters), with loopback
only and a /tmp, /run of its own. Each Ray node then runs in a PID and mount namespace of its own
under that (its own /tmp/ray and /dev/shm, as a pod has), with its own IP on loopback and its own
ports, since the nodes share one network namespace:

    with Cluster("2.60.0", work) as c:
        head = c.add_node("training-0", head=True).start()
        c.add_node("training-1").start()
        c.wait_alive(["training-0", "training-1"])
        r = c.raylaunch("status", "--address", c.gcs_address)

`Node.crash()` kills a node at once (its PID namespace), as the kubelet kills a container;
`Node.stop()` sends SIGTERM to its `ray start --block`, as a pod's deletion does; `Node.vanish()`
also takes its IP away so that packets to it are dropped without an answer (a pod that is gone).
Debian's /usr/bin/python3, stdlib only.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
IN_POD = os.path.join(HERE, "in-pod")
RELEASES_FILE = os.path.join(REPO, "tests", "ray-releases.txt")
SUBNET = "10.77.0"
_MARK = "RAYLAUNCH_RAY_NAMESPACES"


class Skip(Exception):
    """The test cannot run here (exit 125 with one line); never used for a release that failed to
    install: that is a failure (NotInstalled)."""


class NotInstalled(Exception):
    """A pinned release is not installed; the message is pip's reason from scripts/ray-venvs."""


class Failure(AssertionError):
    pass


# --- releases -------------------------------------------------------------------------------

def releases():
    """[(version, role)] of tests/ray-releases.txt, in file order."""
    out = []
    with open(RELEASES_FILE) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) >= 2:
                out.append((words[0], words[1]))
    return out


def current_release():
    return next(v for v, role in releases() if role == "current")


def version_tuple(version):
    return tuple(int(x) for x in re.findall(r"\d+", version)[:3])


def venv(version):
    """The virtualenv of `version`; NotInstalled with scripts/ray-venvs' reason otherwise."""
    listing = subprocess.run([os.path.join(REPO, "scripts", "ray-venvs"), "--list"], capture_output=True,
                             text=True, check=True).stdout
    for line in listing.splitlines():
        fields = line.split("\t")
        if fields[0] == version:
            if fields[2] == "installed":
                return fields[3]
            raise NotInstalled(f"ray {version} is {fields[2]}: {fields[3]}")
    raise NotInstalled(f"ray {version} is not in {RELEASES_FILE}")


# --- namespaces -----------------------------------------------------------------------------

def enter_namespaces():
    """Re-executes this program as PID 1 of private PID, mount and network namespaces (once)."""
    if os.environ.get(_MARK) == "1" and os.getpid() == 1:
        _set_up_inside()
        return
    if os.geteuid() != 0:
        raise Skip("needs root (namespaces, mounts, addresses)")
    for tool in ("unshare", "ip", "mount"):
        if shutil.which(tool) is None:
            raise Skip(f"{tool} is not installed")
    env = dict(os.environ, **{_MARK: "1"})
    sys.stdout.flush()
    sys.stderr.flush()
    # --kill-child: if this process is killed (ctest's timeout), the namespace's PID 1 is too, and
    # with it every process of every node.
    os.execvpe("unshare", ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--net", "--mount",
                           "--propagation", "private", sys.executable, *sys.argv], env)


def _set_up_inside():
    # PID 1 ignores SIGTERM unless it handles it: end the test (and so the namespace) on one.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sh("ip", "link", "set", "lo", "up")
    sh("mount", "-t", "tmpfs", "tmpfs", "/tmp")
    sh("mount", "-t", "tmpfs", "tmpfs", "/run")
    sh("mount", "-t", "sysfs", "sysfs", "/sys")  # this network namespace's devices
    # Addresses of the nodes live on lo (/32 each). The rest of the subnet goes to a veth whose
    # peer answers nothing: a packet to an address no node holds any more is dropped without an
    # answer, as for a pod that is gone (connect() hangs; it is not refused).
    sh("ip", "link", "add", "rlv0", "type", "veth", "peer", "name", "rlv1")
    sh("ip", "link", "set", "rlv0", "up")
    sh("ip", "link", "set", "rlv1", "up")
    sh("ip", "route", "add", f"{SUBNET}.0/24", "dev", "rlv0")


def sh(*argv, check=True):
    r = subprocess.run(argv, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def _mac(dev):
    with open(f"/sys/class/net/{dev}/address") as f:
        return f.read().strip()


def add_address(ip):
    sh("ip", "neigh", "del", ip, "dev", "rlv0", check=False)
    sh("ip", "addr", "replace", f"{ip}/32", "dev", "lo")


def remove_address(ip):
    """`ip` stops being anyone's: packets to it vanish (a permanent neighbour entry, so not even ARP
    fails fast)."""
    sh("ip", "addr", "del", f"{ip}/32", "dev", "lo", check=False)
    sh("ip", "neigh", "replace", ip, "lladdr", _mac("rlv1"), "dev", "rlv0", "nud", "permanent")


# --- processes ------------------------------------------------------------------------------

def wait_for(condition, timeout, what, interval=0.2):
    """Polls `condition` until it returns something truthy (returned); Failure after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failure(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


class Result:
    def __init__(self, argv, rc, out, err, seconds):
        self.argv, self.rc, self.out, self.err, self.seconds = argv, rc, out, err, seconds

    @property
    def text(self):
        return self.out + self.err

    def json(self):
        return json.loads(self.out)

    def __repr__(self):
        return f"{' '.join(self.argv[:4])}...: exit {self.rc}\n--- stdout\n{self.out}--- stderr\n{self.err}"


# --- the cluster ----------------------------------------------------------------------------

class Background:
    _n = 0

    def __init__(self, cluster, argv, env):
        Background._n += 1
        self.argv = argv
        base = os.path.join(cluster.work, f"bg-{Background._n}")
        self.out_path, self.err_path = base + ".out", base + ".err"
        self.t0 = time.monotonic()
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, stdin=subprocess.DEVNULL)

    def stderr_so_far(self):
        with open(self.err_path, errors="replace") as f:
            return f.read()

    def result(self, timeout=600):
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise Failure(f"{' '.join(self.argv[:3])} still running after {timeout}s:\n{self.stderr_so_far()}")
        with open(self.out_path, errors="replace") as f:
            out = f.read()
        return Result(self.argv, self.proc.returncode, out, self.stderr_so_far(), time.monotonic() - self.t0)


class Node:
    """One Ray node: `ray start --block` as PID 1 of its own PID and mount namespaces."""

    def __init__(self, cluster, name, slot, head=False, ip=None, env=None, args=(), shm="1g", stale_shm=0):
        self.cluster, self.name, self.slot, self.head = cluster, name, slot, head
        self.ip = ip or f"{SUBNET}.{10 + slot}"
        self.base_port = 21000 + 100 * slot
        self.node_manager_port = self.base_port
        self.env, self.args, self.shm, self.stale_shm = dict(env or {}), list(args), shm, stale_shm
        self.dir = os.path.join(cluster.work, f"node-{slot}-{name}")
        self.proc = None
        self.starts = 0

    def ray_start_argv(self):
        b = self.base_port
        argv = [os.path.join(self.cluster.venv, "bin", "ray"), "start",
                f"--node-ip-address={self.ip}", f"--node-name={self.name}", "--num-cpus=1", "--num-gpus=0",
                "--object-store-memory=80000000", f"--node-manager-port={b}", f"--object-manager-port={b + 1}",
                f"--metrics-export-port={b + 2}", f"--dashboard-agent-listen-port={b + 3}",
                f"--dashboard-agent-grpc-port={b + 4}", f"--runtime-env-agent-port={b + 5}",
                f"--min-worker-port={b + 10}", f"--max-worker-port={b + 60}", "--disable-usage-stats", "--block"]
        if self.head:
            argv += ["--head", f"--port={self.cluster.gcs_port}", "--include-dashboard=false"]
        else:
            argv += [f"--address={self.cluster.head_ip}:{self.cluster.gcs_port}"]
        return argv + self.args

    def raylaunch_env(self, nodes):
        """What a pod of the StatefulSet gives `raylaunch run`, for this node's IP and ports."""
        b = self.base_port
        ray_args = [f"--node-ip-address={self.ip}", "--num-cpus=1", "--object-store-memory=80000000",
                    f"--object-manager-port={b + 1}", f"--dashboard-agent-listen-port={b + 3}",
                    f"--dashboard-agent-grpc-port={b + 4}", f"--runtime-env-agent-port={b + 5}",
                    f"--min-worker-port={b + 10}", f"--max-worker-port={b + 60}"]
        if self.head:
            ray_args.append("--include-dashboard=false")
        return {"HOSTNAME": self.name, "RAYLAUNCH_NODES": str(nodes), "RAYLAUNCH_HEAD_ADDRESS": self.cluster.head_ip,
                "RAYLAUNCH_RAY_PORT": str(self.cluster.gcs_port), "RAYLAUNCH_NODE_MANAGER_PORT": str(b),
                "RAYLAUNCH_METRICS_EXPORT_PORT": str(b + 2), "RAYLAUNCH_VENV": self.cluster.venv,
                "RAYLAUNCH_GPUS": "0", "RAYLAUNCH_EFA": "0", "RAYLAUNCH_CHECKS": "warn",
                "RAYLAUNCH_TERMINATION_LOG": os.path.join(self.dir, "termination-log"),
                "RAYLAUNCH_RAY_ARGS": " ".join(ray_args)}

    def start_raylaunch(self, nodes, command=()):
        """The pod's container command: `raylaunch run [-- COMMAND]` as its PID 1."""
        self.env.update(self.raylaunch_env(nodes))
        return self.start([self.cluster.raylaunch_bin, "run", *(["--", *command] if command else [])])

    def termination_message(self):
        try:
            with open(os.path.join(self.dir, "termination-log")) as f:
                return f.read().strip()
        except OSError:
            return ""

    def start(self, argv=None):
        """Starts the node (again, after a crash or stop: a new container of the same pod)."""
        add_address(self.ip)
        os.makedirs(os.path.join(self.dir, "tmp"), exist_ok=True)
        self.starts += 1
        self.log = os.path.join(self.dir, f"start-{self.starts}.log")
        env = dict(self.cluster.base_env, **self.env)
        env = {k: v for k, v in env.items() if v is not None}
        cmd = ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--mount", "--propagation", "private",
               IN_POD, self.dir, self.shm, str(self.stale_shm)] + (argv or self.ray_start_argv())
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=self.dir)
        # A node that exits at once (a refused setting) never shows one: nothing of it to track.
        found = wait_for(lambda: _pidns(self.proc.pid) or self.proc.poll() is not None, 30,
                         f"{self.name}'s PID namespace")
        self.pidns = found if isinstance(found, str) else None
        return self

    def init_pid(self):
        """The node's PID 1 (its `ray start`), as this namespace sees it."""
        return wait_for(lambda: (children(self.proc.pid) or [None])[0], 10, f"{self.name}'s PID 1")

    def tree(self):
        """PIDs of this node's processes: its unshare, and every process in its PID namespace
        (orphans included, which this test's PID 1 inherits)."""
        found = [self.proc.pid]
        for entry in (os.listdir("/proc") if self.pidns else []):
            if entry.isdigit():
                try:
                    if os.readlink(f"/proc/{entry}/ns/pid") == self.pidns:
                        found.append(int(entry))
                except OSError:
                    pass
        return found

    def pids(self, comm):
        """PIDs of this node's processes named `comm` (e.g. "raylet", "gcs_server")."""
        return [pid for pid in self.tree() if _comm(pid) == comm]

    def wait_settled(self, timeout=180):
        """Until Ray's dashboard agent on this node has finished starting (it logs "raylet pid is"
        once its GCS client is connected, process_watcher.py): a raylet fate-shares with its
        agents, and an agent still starting exits if the GCS is away."""
        def agent_started():
            latest = os.path.join(self.dir, "tmp", "ray", "session_latest")
            try:
                session = os.path.join(self.dir, "tmp", "ray", os.path.basename(os.readlink(latest)))
                with open(os.path.join(session, "logs", "dashboard_agent.log"), errors="replace") as f:
                    return "raylet pid is" in f.read()
            except OSError:
                return False
        wait_for(agent_started, timeout, f"{self.name}'s dashboard agent to start")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def crash(self):
        """SIGKILL to the whole node at once: what a container OOM kill or a node failure does.
        Returns once every process of it is gone (its ports are free again)."""
        if self.alive():
            pids = self.tree()
            self.proc.kill()
            self.proc.wait()
            _wait_gone(pids)

    def stop(self, timeout=60):
        """SIGTERM to `ray start --block`, as a pod's deletion does; waits for the node to end."""
        if self.alive():
            pids = self.tree()
            os.kill(self.init_pid(), signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.crash()
            _wait_gone(pids)

    def vanish(self):
        """The node and its IP are gone: packets to it are dropped unanswered."""
        self.crash()
        remove_address(self.ip)

    def tail(self, lines=30):
        out = []
        for path in [self.log] + sorted(_ray_logs(self.dir)):
            try:
                with open(path, errors="replace") as f:
                    text = f.read().splitlines()[-lines:]
            except OSError:
                continue
            out.append(f"--- {path}\n" + "\n".join(text))
        return "\n".join(out)


def _pidns(unshare_pid):
    """The PID namespace of unshare's child, once it is in its own (not unshare's)."""
    try:
        child = children(unshare_pid)
        ns = os.readlink(f"/proc/{child[0]}/ns/pid") if child else None
        return ns if ns and ns != os.readlink(f"/proc/{unshare_pid}/ns/pid") else None
    except OSError:
        return None


def _comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


def _gone(pid):
    """Exited: no such process, or a zombie (this test is the namespace's PID 1 and leaves the
    zombies of orphans alone: reaping them would race subprocess's own waits)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _wait_gone(pids, timeout=60):
    wait_for(lambda: all(_gone(p) for p in pids), timeout, "a node's processes to exit")


def _ray_logs(node_dir):
    # session_latest points at /tmp/ray/session_… as the node sees its /tmp: resolve it here.
    latest = os.path.join(node_dir, "tmp", "ray", "session_latest")
    try:
        latest = os.path.join(node_dir, "tmp", "ray", os.path.basename(os.readlink(latest)))
    except OSError:
        return []
    logs = os.path.join(latest, "logs")
    wanted = ("gcs_server.out", "gcs_server.err", "raylet.out", "raylet.err")
    return [os.path.join(logs, n) for n in wanted if os.path.exists(os.path.join(logs, n))]


class Cluster:
    """Nodes of one Ray release sharing this network namespace; the head's GCS on gcs_port."""

    def __init__(self, version, work, gcs_port=6379, env=None, raylaunch=None):
        self.version = version
        self.venv = venv(version)
        self.work = work
        self.gcs_port = gcs_port
        self.head_ip = None
        self.nodes = []
        self.first_slot = _take_slots(20)  # clusters made one after another never share IPs or ports
        self.raylaunch_bin = raylaunch or os.environ.get("RAYLAUNCH_BIN", "")
        self.home = os.path.join(work, "home")
        os.makedirs(self.home, exist_ok=True)
        # What every Ray process and raylaunch see: nothing from the caller's environment that
        # would change them (a token, TLS, a proxy, another cluster's address).
        self.base_env = {"PATH": os.path.join(self.venv, "bin") + ":/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
                         "HOME": self.home, "LANG": "C.UTF-8", "RAY_USAGE_STATS_ENABLED": "0"}
        self.base_env.update(env or {})

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is not None and not isinstance(value, Skip):
            print(self.describe(), file=sys.stderr)
        for node in reversed(self.nodes):
            node.crash()
        return False

    @property
    def gcs_address(self):
        return f"{self.head_ip}:{self.gcs_port}"

    def add_node(self, name, head=False, **kw):
        node = Node(self, name, slot=self.first_slot + len(self.nodes), head=head, **kw)
        if head:
            self.head_ip = node.ip
        self.nodes.append(node)
        return node

    def _env(self, env):
        run_env = dict(self.base_env)
        for k, v in (env or {}).items():
            if v is None:
                run_env.pop(k, None)
            else:
                run_env[k] = v
        return run_env

    def raylaunch(self, *args, env=None, timeout=120):
        """Runs the built raylaunch with the cluster's clean environment plus `env` (None removes)."""
        argv = [self.raylaunch_bin, *args]
        t0 = time.monotonic()
        r = subprocess.run(argv, capture_output=True, text=True, env=self._env(env), timeout=timeout,
                           stdin=subprocess.DEVNULL)
        return Result(argv, r.returncode, r.stdout, r.stderr, time.monotonic() - t0)

    def raylaunch_async(self, *args, env=None):
        """raylaunch in the background: .result(timeout) waits for it, .stderr_so_far() peeks."""
        return Background(self, [self.raylaunch_bin, *args], self._env(env))

    def status(self, env=None):
        r = self.raylaunch("status", "--address", self.gcs_address, "--output", "json", env=env)
        return r.json() if r.rc == 0 else None

    def rows(self, name=None, alive=None, env=None):
        s = self.status(env)
        if s is None:
            return []
        return [n for n in s["nodes"] if (name is None or n["node_name"] == name) and
                (alive is None or (n["state"] == "ALIVE") == alive)]

    def wait_alive(self, names, timeout=240, fresh_from=None, env=None):
        """Waits until each of `names` has an ALIVE row (one not in `fresh_from`, a set of node ids,
        when given: the node's new registration after a restart). `env`: raylaunch's credentials."""
        fresh_from = fresh_from or set()

        def ready():
            for node in self.nodes:
                if node.name in names and node.proc is not None and node.proc.poll() is not None:
                    raise Failure(f"{node.name} exited ({node.proc.returncode}) before registering (its logs follow)")
            s = self.status(env)
            if s is None:
                return None
            alive = {(n["node_name"], n["node_id"]) for n in s["nodes"] if n["state"] == "ALIVE"}
            return s if all(any(nm == name and nid not in fresh_from for nm, nid in alive) for name in names) else None
        return wait_for(ready, timeout, f"ALIVE rows of {', '.join(names)} on Ray {self.version}", interval=0.5)

    def describe(self):
        parts = [f"=== Ray {self.version} cluster in {self.work}"]
        for node in self.nodes:
            state = "running" if node.alive() else f"exited {node.proc.returncode if node.proc else '-'}"
            parts.append(f"== {node.name} ({node.ip}, {state})\n{node.tail()}")
        return "\n".join(parts)


_next_slot = 0


def _take_slots(n):
    global _next_slot
    first = _next_slot
    _next_slot += n
    if _next_slot > 240:
        raise RuntimeError("out of node slots (addresses 10.77.0.10-250)")
    return first


# --- a TCP relay that counts what the server sends -------------------------------------------

class ByteCounter:
    """Listens on 127.0.0.1:<port> and relays to `target`; counts the bytes the server sent."""

    def __init__(self, target_host, target_port):
        self.target = (target_host, target_port)
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = self.server.getsockname()[1]
        self.lock = threading.Lock()
        self.from_server = 0
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def reset(self):
        with self.lock:
            self.from_server = 0
            self.connections = 0

    def total(self):
        with self.lock:
            return self.from_server

    def _accept(self):
        while True:
            client, _ = self.server.accept()
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.connections += 1
            threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, src, dst, count):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if count:
                    with self.lock:
                        self.from_server += len(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


# --- running a test file --------------------------------------------------------------------

def main(*tests):
    """The ctest contract: 0 pass, 1 fail, 125 skip with one line. Runs `tests` in order, in the
    private namespaces."""
    try:
        enter_namespaces()
        for test in tests:
            print(f"--- {test.__name__}", flush=True)
            t0 = time.monotonic()
            test()
            print(f"--- {test.__name__}: ok ({time.monotonic() - t0:.0f}s)", flush=True)
    except Skip as e:
        print(f"SKIP: {e}")
        sys.exit(125)
    except NotInstalled as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception:
        import traceback
        traceback.print_exc()
        _keep_work()
        sys.exit(1)
    sys.exit(0)


WORK_ROOT = "/run/raylaunch-tests"


def work_dir(name):
    """A directory of this test in the namespace's private /run (gone with the namespace; not
    under /tmp, which each node replaces with its own, so that paths here mean the same in nodes)."""
    path = os.path.join(WORK_ROOT, name)
    os.makedirs(path, exist_ok=True)
    return path


def _keep_work():
    """RAYLAUNCH_KEEP_WORK=DIR: a failed test's work (nodes' /tmp/ray logs included) copied there."""
    keep = os.environ.get("RAYLAUNCH_KEEP_WORK")
    if keep and os.path.isdir(WORK_ROOT):
        shutil.copytree(WORK_ROOT, keep, dirs_exist_ok=True, symlinks=True,
                        ignore=shutil.ignore_patterns("sockets", "*.sock"), ignore_dangling_symlinks=True)
        print(f"work kept in {keep}", file=sys.stderr)
