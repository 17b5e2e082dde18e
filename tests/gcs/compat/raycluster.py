"""Real Ray clusters for tests: the pinned releases (scripts/ray-venvs), in private namespaces.

A test calls `main(...)` (raytest.py), which first enters private namespaces (netns.py). Each Ray
node then runs in a PID and mount namespace of its own under that (its own /tmp/ray and /dev/shm,
as a pod has), with its own IP on loopback and its own ports, since the nodes share one network
namespace:

    with Cluster("2.60.0", work) as c:
        head = c.add_node("training-0", head=True).start()
        c.add_node("training-1").start()
        c.wait_alive(["training-0", "training-1"])
        r = c.raylaunch("status", "--address", c.gcs_address)

`Node.crash()` kills a node at once (its PID namespace), as the kubelet kills a container;
`Node.stop()` sends SIGTERM to its `ray start --block`, as a pod's deletion does; `Node.vanish()`
also takes its IP away. `start_raylaunch()` makes `raylaunch run` the node's PID 1 instead, as in a
pod. Debian's /usr/bin/python3, stdlib only. The names of raytest.py, netns.py and bytecounter.py
are re-exported here, so tests import this one module.
"""
import json
import os
import signal
import subprocess
import sys
import time

from bytecounter import ByteCounter  # noqa: F401
from raytest import (REPO, Failure, NotInstalled, Skip, current_release, main, releases, venv,  # noqa: F401
                     version_tuple, wait_for, work_dir)
from netns import (HOST_TMP_ENTRIES, SUBNET, _comm, _gone, _pidns, _wait_gone, add_address, children, enter_namespaces,  # noqa: F401
                   remove_address)

HERE = os.path.dirname(os.path.abspath(__file__))
IN_POD = os.path.join(HERE, "in-pod")


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
        if os.environ.get(HOST_TMP_ENTRIES):  # for in-pod, which binds them into the node's /tmp
            self.base_env[HOST_TMP_ENTRIES] = os.environ[HOST_TMP_ENTRIES]
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
