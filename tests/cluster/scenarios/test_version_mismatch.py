#!/usr/bin/python3
"""A worker whose Ray differs from its head's stops before `ray start` (issue 19 item 5), on the
real Ray: training-1's image has Ray 2.52.1 (RAYLAUNCH_VENV of another pinned release), the
head 2.60.0. training-1 reads its versions from its files, the head's from the cluster metadata
in the head's GCS, and exits 78 (a node check failed, as the indexed Job's podFailurePolicy
fails the Job on) naming both — without starting Ray, which would refuse it anyway, later and
less clearly."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import survive  # noqa: E402,F401  (skips without the real-Ray harness)
from harness import realray  # noqa: E402
from harness.scenario import assert_clean_end, raylaunch_cluster, wait_exit  # noqa: E402
from harness.testing import main  # noqa: E402

OTHER = "2.52.1"


def other_venv_for_training_1(venv):
    def mutate(pod):
        pod = realray.small_shm(pod)
        if pod["metadata"]["name"] == "training-1":
            for e in pod["spec"]["containers"][0]["env"]:
                if e["name"] == "RAYLAUNCH_VENV":
                    e["value"] = venv
        return pod
    return mutate


def test_a_worker_with_another_ray_stops_before_ray_start():
    venv = os.path.join(os.path.dirname(realray.current_venv()), OTHER)
    assert os.access(os.path.join(venv, "bin", "ray"), os.X_OK), f"{venv}: run scripts/ray-venvs"
    with raylaunch_cluster("p4de", replicas=2, mutate_pod=other_venv_for_training_1(venv)) as c:
        c.start()
        run = wait_exit(c, "training-1", 0, 240)
        assert_clean_end(c, run, "training-1", 78, "node check versions failed: this worker has Ray 2.52.1")
        assert f"the head Ray {realray.release(c.venv)}" in run.message, run.message
        assert "started ray start" not in run.text(), run.text()[-3000:]


if __name__ == "__main__":
    main(test_a_worker_with_another_ray_stops_before_ray_start)
