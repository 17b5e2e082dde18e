"""FAKE `ray start`, for tests only (Ray's python/ray/scripts/scripts.py `start` and
python/ray/_private/node.py; ray-gcs-wire.md §5; supervisor.md).

Head: a GCS on --port (all interfaces), then a raylet that registers itself in it. Worker: connect
to the head's GCS, retrying RAY_NUM_REDIS_GET_RETRIES times (default 20) one second apart, then a
raylet that registers itself in the head's GCS over TCP. Without --block: print "Ray runtime
started." and exit 0, the processes keep running. With --block: watch them every second; SIGTERM
stops them (raylet first, SIGTERM, 1 s, SIGKILL) and exits 1; a child that exits with anything but
0/SIGTERM/143 makes it print "Some Ray subprocesses exited unexpectedly", SIGKILL the rest and exit 1.
"""

import atexit
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time

from . import node
from .say import say, fail_like_ray

EXPECTED_EXIT_CODES = (0, signal.SIGTERM, -signal.SIGTERM, 128 + signal.SIGTERM)
HEAD_ONLY = ("port", "redis_shard_ports", "include_dashboard")


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _gpu_count():
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([d for d in visible.split(",") if d.strip() and d.strip() != "NoDevFiles"])
    return len([d for d in os.listdir("/dev") if d.startswith("nvidia") and d[6:].isdigit()])


def _mem_available():
    with open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def _resources(opts):
    """Ray's ResourceSpec, simplified: CPU, GPU, memory, object store, plus --resources."""
    try:
        custom = json.loads(opts.get("resources", "{}"))
        assert isinstance(custom, dict)
    except (ValueError, AssertionError):
        fail_like_ray("`--resources` is not a valid JSON string.", "`{}` is not a valid JSON string.")
    available = _mem_available()
    store = opts.get("object_store_memory") or int(min(0.3 * available, 200e9))
    res = {"CPU": opts.get("num_cpus", os.cpu_count()), "GPU": opts.get("num_gpus", _gpu_count()),
           "object_store_memory": store, "memory": opts.get("memory") or max(available - store, 0)}
    res.update(custom)
    return res


def _labels(raw):
    """--labels: a JSON dict (<= 2.44) or "k1=v1,k2=v2" (2.45+)."""
    raw = (raw or "{}").strip()
    try:
        if raw.startswith("{"):
            return {str(k): str(v) for k, v in json.loads(raw).items()}
        return dict(kv.split("=", 1) for kv in raw.split(",") if kv)
    except ValueError:
        fail_like_ray(f"`--labels` is not a valid string of key-value pairs: {raw}",
                      "`{}` is not a valid string of key-value pairs: {}")
        return {}


def _validate(opts):
    if opts.get("head"):
        return
    if opts.get("address") is None:
        fail_like_ray("`--address` is a required flag unless starting a head node with `--head`.",
                      "`{}` is a required flag unless starting a head node with `{}`.")
    for key in HEAD_ONLY:
        if opts.get(key) is not None:
            flag = "--" + key.replace("_", "-")
            fail_like_ray(f"`{flag}` should only be specified when starting head node with `--head`.",
                          "`{}` should only be specified when starting head node with `{}`.")


def _connect_worker(fake_gcs, address):
    """Node._init_gcs_client: RAY_NUM_REDIS_GET_RETRIES attempts, one second apart."""
    retries = int(os.environ.get("RAY_NUM_REDIS_GET_RETRIES", "20"))
    timeout_ms = int(os.environ.get("RAY_gcs_rpc_server_connect_timeout_s", "5")) * 1000
    for _ in range(retries):
        r = subprocess.run([fake_gcs, "ping", "--address", address, "--timeout-ms", str(timeout_ms),
                            "--token-from-env", "--tls-from-env"], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, check=False)
        if r.returncode == 0:
            return True
        time.sleep(1)
    return False


def _raylet_args(opts, resources, labels, session, node_id, node_ip, gcs_address, head):
    args = ["raylet", "--port", str(opts.get("node_manager_port", 0)),
            "--bind", "127.0.0.1" if node_ip == "127.0.0.1" else "0.0.0.0",
            "--port-file", os.path.join(session, "raylet.port"), "--node-id", node_id,
            "--gcs-address", gcs_address, "--node-ip", node_ip,
            "--node-name", opts.get("node_name") or node_ip, "--session-dir", session,
            "--object-manager-port", str(opts.get("object_manager_port") or _free_port()),
            "--metrics-export-port", str(opts.get("metrics_export_port") or _free_port()),
            "--token-from-env", "--tls-from-env"]
    if head:
        args.append("--head")
    for name, quantity in resources.items():
        args += ["--resource", f"{name}={quantity}"]
    for key, value in labels.items():
        args += ["--label", f"{key}={value}"]
    die_after = os.environ.get("FAKE_RAY_DIE_AFTER")
    if die_after:
        args += ["--die-after-ms", str(int(float(die_after) * 1000))]
    return args


class Start:
    def __init__(self, opts):
        self.opts = opts
        self.head = bool(opts.get("head"))
        self.block = bool(opts.get("block"))
        self.children = []
        self.stopping = False

    def on_sigterm(self, _signum, _frame):
        if os.environ.get("FAKE_RAY_IGNORE_SIGTERM") == "1":
            say("fake ray: FAKE_RAY_IGNORE_SIGTERM=1: SIGTERM ignored", err=True)
            return
        if self.stopping:
            return
        self.stopping = True
        node.kill_all(self.children, graceful=True)  # node._register_shutdown_hooks
        sys.exit(1)

    def run(self):
        _validate(self.opts)
        resources, labels = _resources(self.opts), _labels(self.opts.get("labels"))  # bad ones: nothing started
        fail = os.environ.get("FAKE_RAY_FAIL_START")
        if fail:
            say("Local node IP: " + node.node_ip_from_perspective())
            say("Traceback (most recent call last):\n  (FAKE ray: FAKE_RAY_FAIL_START)\n"
                "RuntimeError: Failed to start GCS.", err=True)
            # Ray's log format separates its fields with a tab (ray_constants.LOGGER_FORMAT).
            say("2026-12-01 00:00:00,000\tERROR services.py:1 -- Failed to start the GCS", err=True)
            return int(fail)
        fake_gcs = node.find_fake_gcs()
        if not fake_gcs:
            say("fake ray: cannot find the fake GCS: set FAKE_GCS to the built fake_gcs "
                "(cmake --build BUILD --target fake_gcs)", err=True)
            return 1
        if self.block:
            signal.signal(signal.SIGTERM, self.on_sigterm)
            atexit.register(node.kill_all, self.children, True)
        if self.opts.get("temp_dir") and not self.head:
            say(f"`--temp-dir={self.opts['temp_dir']}` option will be ignored. `--head` is a required flag "
                "to use `--temp-dir`.", err=True)
            self.opts.pop("temp_dir")
        root = node.temp_root(self.opts.get("temp_dir"))
        if self.head:
            if self.opts.get("disable_usage_stats"):
                say("Usage stats collection is disabled.")
            node_ip = node.resolve_ip_for_localhost(self.opts.get("node_ip_address") or "") or \
                node.node_ip_from_perspective()
            say(f"Local node IP: {node_ip}")
            session = node.new_session_dir(root)
            gcs_port, control = self.start_gcs(fake_gcs, session, node_ip)
            if gcs_port is None:
                return 1
            gcs_address = f"{node_ip}:{gcs_port}"
        else:
            gcs_address = node.resolve_ip_for_localhost(self.opts["address"])
            node_ip = node.resolve_ip_for_localhost(self.opts.get("node_ip_address") or "") or \
                node.node_ip_from_perspective(gcs_address)
            say(f"Local node IP: {node_ip}")
            if not _connect_worker(fake_gcs, gcs_address):
                say("Traceback (most recent call last):\n  (FAKE ray: Node._init_gcs_client)\n"
                    "RuntimeError: Failed to connect to GCS.", err=True)
                return 1
            session = node.new_session_dir(root)
            gcs_port, control = None, None
        node_id = os.urandom(28).hex()
        raylet_args = _raylet_args(self.opts, resources, labels, session, node_id, node_ip, gcs_address, self.head)
        raylet = node.spawn(session, "raylet", fake_gcs, raylet_args, self.block)
        self.children.append(raylet)
        raylet_port = node.wait_for_file(os.path.join(session, "raylet.port"), raylet, 30)
        if raylet_port is None:
            node.kill_all(self.children, graceful=False)
            say("Exception: The current node timed out during startup. This could happen because some of the "
                "raylet failed to startup or the GCS has become overloaded.", err=True)
            return 1
        with open(os.path.join(root, "ray_current_cluster"), "w", encoding="ascii") as f:
            f.write(gcs_address + "\n")
        node.write_session_info(session, {
            "role": "head" if self.head else "worker", "node_id": node_id, "node_ip": node_ip,
            "node_name": self.opts.get("node_name") or node_ip, "gcs_address": gcs_address,
            "gcs_port": gcs_port, "gcs_control": control, "raylet_port": raylet_port,
            "pids": {c.kind: c.popen.pid for c in self.children}, "ray_start_pid": os.getpid(),
            "block": self.block, "session_dir": session})
        self.print_started(gcs_address)
        return self.watch() if self.block else 0

    def start_gcs(self, fake_gcs, session, node_ip):
        control = os.path.join(session, "sockets", "gcs_control")
        if len(control) > 100:  # sun_path holds 108 bytes
            control = f"/tmp/fake-gcs-control-{os.getpid()}.sock"
        args = ["serve", "--port", str(self.opts.get("port", 6379)),
                "--bind", "127.0.0.1" if node_ip == "127.0.0.1" else "0.0.0.0",
                "--port-file", os.path.join(session, "gcs_server.port"), "--control", "unix:" + control,
                "--ray-version", os.environ.get("FAKE_RAY_VERSION", "2.9.0"), "--token-from-env", "--tls-from-env"]
        args += shlex.split(os.environ.get("FAKE_RAY_GCS_ARGS", ""))
        gcs = node.spawn(session, "gcs_server", fake_gcs, args, self.block)
        self.children.append(gcs)
        port = node.wait_for_file(os.path.join(session, "gcs_server.port"), gcs,
                                  int(os.environ.get("RAY_NUM_REDIS_GET_RETRIES", "20")))
        if port is None:
            node.kill_all(self.children, graceful=False)
            errors = node.last_error_lines(session, "gcs_server")
            say("Traceback (most recent call last):\n  (FAKE ray: Node._init_gcs_client)\n"
                f"RuntimeError: Failed to start GCS.  Last {len(errors)} lines of error files:\n"
                + "\n".join(errors) + f"\n.Please check {session}/logs/gcs_server.out for details", err=True)
        return port, control

    def print_started(self, gcs_address):
        say("\n--------------------\nRay runtime started.\n--------------------\n")
        if self.head:
            say(f"Next steps\n  To add another node to this Ray cluster, run\n    ray start --address='{gcs_address}'\n")
        say("To terminate the Ray runtime, run\n  ray stop")
        if self.block:
            say("\n--block\n  This command will now block forever until terminated by a signal.\n"
                "  Running subprocesses are monitored and a message will be printed if any of them terminate "
                "unexpectedly. Subprocesses exit with SIGTERM will be treated as graceful, thus NOT reported.")

    def watch(self):
        try:
            while True:
                time.sleep(1)
                dead = [c for c in self.children if c.popen.poll() is not None]
                unexpected = [c for c in dead if c.popen.returncode not in EXPECTED_EXIT_CODES]
                if unexpected:
                    lines = "".join(f"  {c.kind} [exit code={c.popen.returncode}]\n" for c in unexpected)
                    say(f"\nSome Ray subprocesses exited unexpectedly:\n{lines}\nRemaining processes will be killed.",
                        err=True)
                    node.kill_all(self.children, graceful=False)
                    os._exit(1)
        except KeyboardInterrupt:  # click turns it into Abort: "Aborted!", exit 1 (atexit stops Ray)
            say("\nAborted!", err=True)
            return 1
