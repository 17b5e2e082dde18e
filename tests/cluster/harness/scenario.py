"""What the scenario tests of issue 12 share: the binary under test as every pod's PID 1
(`raylaunch run` from the overlay's own command line), the fake Ray inside the pods
(tests/fakes/bin/ray on PATH, its GCS and raylet from $FAKE_GCS), and what a machine
without GPUs needs. A scenario reads:

    def test_four_pods_run_the_command_once():
        with raylaunch_cluster("p4de", replicas=4, launch=LAUNCH) as c:
            c.start()
            head = c.pod("training-0")
            c.wait_for(lambda: launched(c) == 1, 60, "the launch command on the head")

Every scenario skips (exit 125, one line) until `raylaunch run` is in the build under test.
"""
import os
import re
import subprocess

from .cluster import Cluster
from .testing import REPO, Skip, raylaunch_bin, tracked, verbose_sink

FAKES_BIN = os.path.join(REPO, "tests", "fakes", "bin")
# No GPU, EFA device or the overlay's virtualenv on this machine; the rest as the overlay says.
NODE_ENV = {"RAYLAUNCH_GPUS": "0", "RAYLAUNCH_EFA": "0", "RAYLAUNCH_VENV": None}
# The launch command of most scenarios: one line on the head saying how many nodes were
# ALIVE when it started (asked of the head's GCS, as ray.init() would find it).
LAUNCH = ["sh", "-c", 'echo "LAUNCH on $HOSTNAME:'
          ' $("$FAKE_GCS" nodes --address 127.0.0.1:6379 | grep -c ALIVE) alive"']


def require_run():
    """(raylaunch, fake_gcs), or Skip saying what is missing."""
    binary = raylaunch_bin()
    out = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    if not re.search(r"^\s+run\s", out, re.M):
        raise Skip("`raylaunch run` is not in this build yet")
    if not os.access(os.path.join(FAKES_BIN, "ray"), os.X_OK):
        raise Skip("the fake ray (tests/fakes/bin/ray) is missing")
    fake_gcs = os.environ.get("FAKE_GCS")
    if not fake_gcs or not os.access(fake_gcs, os.X_OK):
        raise Skip("FAKE_GCS is not set to a built fake_gcs")
    return binary, fake_gcs


def fake_ray_env(time_scale):
    """Ray's own health-check timing, scaled like the manifests' (the fake honours them)."""
    return {"RAY_health_check_initial_delay_ms": str(max(1, int(5000 * time_scale))),
            "RAY_health_check_period_ms": str(max(1, int(3000 * time_scale))),
            "RAY_health_check_timeout_ms": str(max(1, int(10000 * time_scale)))}


def raylaunch_cluster(overlay="p4de", replicas=2, launch=LAUNCH, env=None, time_scale=0.05,
                      image_env=None, **kw):
    """The overlay's pods running the binary under test, with the launch command replaced."""
    binary, fake_gcs = require_run()
    pod_env = dict(NODE_ENV)
    pod_env.update(env or {})
    image = {"FAKE_GCS": fake_gcs, "PYTHONDONTWRITEBYTECODE": "1"}
    image.update(fake_ray_env(time_scale))
    image.update(image_env or {})
    kw.setdefault("log", verbose_sink())
    kw.setdefault("show_events", bool(os.environ.get("RLC_VERBOSE")))
    return tracked(Cluster.from_overlay(overlay, replicas=replicas, raylaunch=binary, launch=launch,
                                        env=pod_env, image_env=image, path_prefix=[FAKES_BIN],
                                        time_scale=time_scale, **kw))


def launched(c):
    """How many times the launch command ran, over every pod and restart."""
    return sum(p.log_text().count("LAUNCH on ") for p in c.all_pods)
