#!/usr/bin/python3
"""A worker whose Ray differs from its head's stops before `ray start`, on the real cluster: the
kit's StatefulSet updates OnDelete, so a changed pod template (here: the image's other pinned
Ray release, RAYLAUNCH_VENV=/opt/venv/ray-other) reaches a pod only when it is deleted. Apply
the change, delete only the worker, and the worker runs the new template beside a head of the
old one. It reads its Ray from its files and its head's from the cluster metadata in the head's
GCS, and exits 78 (a node check failed) naming both — without starting Ray, which would refuse
it anyway, later and less clearly. The head is not touched.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest import workload  # noqa: E402
from kubetest.scenario import OTHER_VENV, assert_clean_end, raylaunch_run, wait_exit, wait_log  # noqa: E402
from kubetest.testing import eq, main  # noqa: E402


def with_venv(docs, venv):
    template = workload.workload(docs)["spec"]["template"]
    for e in template["spec"]["containers"][0]["env"]:
        if e["name"] == "RAYLAUNCH_VENV":
            e["value"] = venv
    return docs


def release_of(k, name, venv):
    code, out = k.exec(name, [f"{venv}/bin/python", "-c", "import ray; print(ray.__version__)"], timeout=90)
    eq(code, 0, f"ray's version in {venv}: {out}")
    return out.strip().splitlines()[-1]


def test_a_worker_with_another_ray_stops_before_ray_start():
    with raylaunch_run(replicas=2) as k:
        k.start()
        wait_log(k, "training-0", "staying up (--on-success stay)", 300)
        head = k.pod("training-0")
        other, current = release_of(k, "training-0", OTHER_VENV), release_of(k, "training-0", "/opt/venv/ray")
        assert other != current, (other, current)
        old = k.pod("training-1")
        k.apply(with_venv(k.docs, OTHER_VENV))
        k.delete_pod("training-1")
        k.wait_for(lambda: k.pod("training-1").uid != old.uid, 120, "training-1 recreated")
        run = wait_exit(k, "training-1", 0, 240)
        assert_clean_end(run, "training-1", 78, f"node check versions failed: this worker has Ray {other}")
        assert f"the head Ray {current}" in run.message, run.message
        assert "started ray start" not in run.text(), run.text()[-3000:]
        eq((k.pod("training-0").uid, k.pod("training-0").restart_count), (head.uid, 0), "the head untouched")


main(test_a_worker_with_another_ray_stops_before_ray_start)
