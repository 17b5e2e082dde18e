"""The real Ray in the harness's pods: the current pinned release (tests/ray-releases.txt),
installed by scripts/ray-venvs into a virtualenv under ~/.cache/raylaunch/ray, which every pod
sees (pods share the host's /root; only /tmp and /dev/shm are their own).

Pods get it the way a user's image does: `RAYLAUNCH_VENV=<venv>` (raylaunch puts its `bin`
first on PATH for `ray start` and the command). A missing release fails the test with the line
that says how to install it; it is never skipped.

Ray kept small for a 2-core machine, through raylaunch's own settings as a user would set
them: `RAYLAUNCH_RAY_ARGS=--num-cpus=1` (one worker process per node) and
`RAYLAUNCH_OBJECT_STORE_MEMORY`; the overlay's memory-backed /dev/shm volume is resized to
`SHM_SIZE` (raylaunch's shm check wants 1Gi without GPUs; Ray's object store fits in it).
"""
import os
import subprocess

from .testing import CLUSTER_TESTS, REPO

RAY_VENVS = os.path.join(REPO, "scripts", "ray-venvs")
PROGRAM = os.path.join(CLUSTER_TESTS, "ray_program.py")
NODES = os.path.join(CLUSTER_TESTS, "ray_nodes.py")
SHM_SIZE = "1Gi"
OBJECT_STORE = "128Mi"


class RayMissing(AssertionError):
    """The current Ray release is not installed: a failure, with the command that fixes it."""


def current_venv():
    """The current release's virtualenv (`scripts/ray-venvs --path`), or RayMissing."""
    proc = subprocess.run([RAY_VENVS, "--path"], capture_output=True, text=True)
    venv = proc.stdout.strip()
    if proc.returncode != 0 or not venv:
        raise RayMissing(f"the current Ray release is not installed: {proc.stderr.strip() or proc.returncode}"
                         " (scripts/ray-venvs installs it; scripts/test runs it)")
    if os.path.realpath(venv).startswith("/tmp/"):
        raise RayMissing(f"{venv}: under /tmp, which every pod has its own of; set RAYLAUNCH_RAY_CACHE elsewhere")
    for tool in ("ray", "python"):
        if not os.access(os.path.join(venv, "bin", tool), os.X_OK):
            raise RayMissing(f"{venv}/bin/{tool} is missing: rerun scripts/ray-venvs")
    return venv


def release(venv):
    """The Ray version the virtualenv holds (its directory is named after it)."""
    return os.path.basename(venv.rstrip("/"))


def pod_env(venv):
    """What a user sets on the container to run this Ray on a node without GPUs or EFA."""
    return {"RAYLAUNCH_GPUS": "0", "RAYLAUNCH_EFA": "0", "RAYLAUNCH_FABRIC_CHECK": "off", "RAYLAUNCH_VENV": venv,
            "RAYLAUNCH_RAY_ARGS": "--num-cpus=1", "RAYLAUNCH_OBJECT_STORE_MEMORY": OBJECT_STORE}


def shm_of(size):
    """A mutate_pod that sizes the overlay's memory-backed /dev/shm volume (128Gi in the
    overlay: the tmpfs would accept that much here too, and a test's Ray need not)."""
    def mutate(pod):
        for v in pod["spec"].get("volumes", []):
            if (v.get("emptyDir") or {}).get("medium") == "Memory":
                v["emptyDir"]["sizeLimit"] = size
        return pod
    return mutate


small_shm = shm_of(SHM_SIZE)


def nodes(c, venv, name="training-0"):
    """The head's GCS node table as Ray's own client reads it (ray_nodes.py in the pod):
    [(state, node name, node id, node IP, death reason and message or "-")], oldest first."""
    code, out = c.exec(name, [os.path.join(venv, "bin", "python"), NODES], timeout=90)
    if code != 0:
        raise AssertionError(f"ray_nodes.py in {name}: exit {code}: {out[-2000:]}")
    rows = []
    for line in out.splitlines():
        words = line.split(maxsplit=4)
        if len(words) == 5 and words[0] in ("ALIVE", "DEAD"):
            rows.append(tuple(words))
    return rows


def program_lines(run, prefix):
    """The `PROGRAM <prefix>...` lines of one container start, without `PROGRAM `."""
    return [line.text[len("PROGRAM "):] for line in run.log
            if line.text.startswith("PROGRAM " + prefix)]


def hostnames(run):
    """The hostnames the program's pinned tasks returned, or None before it printed them."""
    found = program_lines(run, "hostnames: ")
    return found[0][len("hostnames: "):].split() if found else None


def ray_processes(c, name):
    """The Ray processes running in a pod now (host pid, command name): `ray start` (its
    command name is `ray`), raylet, gcs_server, Ray's workers and agents (`ray::...`), the
    dashboard's (`ray-dashboard-*`). Ray's Python daemons (log monitor, autoscaler monitor) are
    plain `python`; they are started by `ray start`, which this finds first."""
    return [(pid, comm) for pid, _, comm in c.processes(name)
            if comm in ("ray", "raylet", "gcs_server") or comm.startswith(("ray::", "ray-dashboard"))]
