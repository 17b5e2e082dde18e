#!/usr/bin/python3
"""The fake Ray inside the harness's pods, without raylaunch: `ray start --block` as PID 1,
the head at training-0 and workers joining it through the cluster DNS, as the bash launch
commands users have today do. Checks that the pieces scenarios stand on fit: the fake on
PATH, $FAKE_GCS in the pods (a copy, as raylaunch's), Ray's node IP found through the pod's default route."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness.scenario import FAKES_BIN  # noqa: E402
from harness.testing import Skip, eq, main, testpod_cluster  # noqa: E402

NO_PROBES = {"startup": None, "liveness": None, "readiness": None}


def ray_start(pod):
    c = pod["spec"]["containers"][0]
    head = pod["spec"]["hostname"] == "training-0"
    address = "--head --port=6379" if head else "--address=training-0.training.$(POD_NAMESPACE).svc.cluster.local:6379"
    c["command"] = ["ray", "start", *address.split(), "--node-name=$(POD_NAME)", "--block"]
    c["env"].append({"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}})
    return pod


def test_ray_start_block_in_every_pod():
    fake_gcs = os.environ.get("FAKE_GCS")
    if not fake_gcs or not os.access(fake_gcs, os.X_OK):
        raise Skip("FAKE_GCS is not set to a built fake_gcs")
    with testpod_cluster("p4de", replicas=3, command=None, args=None, probes=NO_PROBES, mutate_pod=ray_start,
                         tools={"fake_gcs": fake_gcs}, image_env={"FAKE_GCS": "/usr/local/bin/fake_gcs"},
                         path_prefix=[FAKES_BIN]) as c:
        c.start()

        def alive():
            code, out = c.exec("training-0", ["fake_gcs", "nodes", "--address", "127.0.0.1:6379"], timeout=5)
            rows = [line.split() for line in out.splitlines() if line.startswith("ALIVE")]
            return len(rows) == 3 and rows
        rows = c.wait_for(alive, 60, "3 ALIVE nodes in the head's GCS")
        eq(sorted((r[1], r[3].split(":")[0]) for r in rows),
           [(p.name, p.ip) for p in c.pods], "node names and IPs = pod names and IPs")
        c.stop()
        eq([p.exit_codes for p in c.all_pods], [[1], [1], [1]], "`ray start --block` exits 1 on SIGTERM")


if __name__ == "__main__":
    main(test_ray_start_block_in_every_pod)
