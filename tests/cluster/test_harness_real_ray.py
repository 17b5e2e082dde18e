#!/usr/bin/python3
"""The real Ray inside the harness's pods, without raylaunch: `ray start --block` as PID 1, the
head at training-0 and workers joining it through the cluster DNS, as the bash launch commands
users have today do. Checks that what the scenarios stand on fits: the current Ray release from
scripts/ray-venvs visible in the pods, each pod's own /tmp/ray and /dev/shm, Ray's node IP
found through the pod's default route, the head's GCS read from inside the pod."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import realray  # noqa: E402
from harness.scenario import RAY_IMAGE_ENV  # noqa: E402
from harness.testing import eq, main, testpod_cluster  # noqa: E402

NO_PROBES = {"startup": None, "liveness": None, "readiness": None}


def ray_start(venv):
    def mutate(pod):
        c = pod["spec"]["containers"][0]
        head = pod["spec"]["hostname"] == "training-0"
        where = ["--head", "--port=6379"] if head else \
            ["--address=training-0.training.$(POD_NAMESPACE).svc.cluster.local:6379"]
        c["command"] = [os.path.join(venv, "bin", "ray"), "start", *where, "--node-name=$(POD_NAME)",
                        "--num-cpus=1", "--object-store-memory=134217728", "--disable-usage-stats", "--block"]
        c["env"].append({"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}})
        return realray.small_shm(pod)
    return mutate


def test_ray_start_block_in_every_pod():
    venv = realray.current_venv()
    image_env = dict(RAY_IMAGE_ENV, PYTHONDONTWRITEBYTECODE="1")
    with testpod_cluster("p4de", replicas=2, command=None, args=None, probes=NO_PROBES,
                         mutate_pod=ray_start(venv), image_env=image_env, grace=40) as c:
        c.start()

        def alive():
            try:
                rows = [r for r in realray.nodes(c, venv) if r[0] == "ALIVE"]
            except AssertionError:  # the head's GCS is not up yet
                return None
            return len(rows) == 2 and rows
        rows = c.wait_for(alive, 240, "2 ALIVE nodes in the head's GCS")
        eq(sorted((r[1], r[3]) for r in rows), [(p.name, p.ip) for p in c.pods],
           "node names and IPs = pod names and IPs")
        # Each pod has its own Ray session under its own /tmp, and its own /dev/shm.
        for p in c.pods:
            code, out = c.exec(p.name, ["sh", "-c", "ls -d /tmp/ray/session_2* | wc -l; df -k /dev/shm | tail -1"])
            count, shm = out.splitlines()[:2]
            eq((code, count.strip()), (0, "1"), f"{p.name}: Ray sessions in its /tmp/ray")
            eq(shm.split()[1], str(1024 * 1024), f"{p.name}: /dev/shm size in KiB")
        c.stop()
        eq([p.exit_codes for p in c.all_pods], [[1], [1]], "`ray start --block` exits 1 on SIGTERM")


if __name__ == "__main__":
    main(test_ray_start_block_in_every_pod)
