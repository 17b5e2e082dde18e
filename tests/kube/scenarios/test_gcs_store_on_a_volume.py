#!/usr/bin/python3
"""The kit's `gcs-ft-rocksdb` component on the real cluster: the local StatefulSet overlay with
the component, so every pod gets its PersistentVolumeClaim from the StatefulSet's
volumeClaimTemplate and the head keeps Ray 2.60's embedded GCS store (RocksDB) on its own.

This cluster has no volume provisioner: the test makes one PersistentVolume per pod beforehand
(a directory on the node, the pod's user as owner, no storage class, as the component's claims
ask for none), bound to the claim the StatefulSet controller will make for it, and deletes them
after.

- the head's container killed (its PID 1, from the node, as the OOM killer or a crash ends it):
  the kubelet restarts it in the same pod, on the same volume; the head takes its store back as
  the same cluster, the workers' containers are not restarted (their raylets reconnect), and the
  program runs again on the head, its RAYLAUNCH_RESTART_COUNT going on from the store's record;
- the head's pod deleted (a node drained, an eviction): the StatefulSet controller recreates it
  with the same claim and a new IP; the head comes back as the same cluster and the workers are
  not restarted either: their raylets reach the head again at its new address.
"""
import json
import os
import shutil
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.cluster import STATE, kubectl  # noqa: E402
from kubetest.scenario import assert_program_saw, launched, raylaunch_run, wait_log  # noqa: E402
from kubetest.testing import eq, main  # noqa: E402

PODS = ("training-0", "training-1", "training-2")
WORKERS = PODS[1:]
USER = 1000  # the test image's user (components/local-cpu)
SAME_CLUSTER = "the head comes back as the same cluster"
STAYING = "staying up (--on-success stay)"


def volumes(namespace, dirs):
    """One PersistentVolume per pod, pre-bound to the claim of its ordinal
    (<template>-<statefulset>-<ordinal>), on a directory of the node (each added to `dirs` as
    soon as it exists)."""
    docs = []
    for i, _ in enumerate(PODS):
        path = os.path.join(STATE, "volumes", f"{namespace}-{i}")
        os.makedirs(path)
        os.chown(path, USER, USER)
        dirs.append(path)
        docs.append({"apiVersion": "v1", "kind": "PersistentVolume",
                     "metadata": {"name": f"{namespace}-gcs-store-{i}"},
                     "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                              "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                              "hostPath": {"path": path, "type": "Directory"},
                              "claimRef": {"namespace": namespace, "name": f"gcs-store-training-{i}"}}})
    return docs


class Store:
    """The test's volumes around a run of the component (the PersistentVolumes outlive the
    namespace: deleted here, with their directories, also when making them failed half-way)."""
    def __init__(self, k):
        self.k = k
        self.docs, self.dirs = [], []

    def __enter__(self):
        try:
            self.docs = volumes(self.k.namespace, self.dirs)
            text = "---\n".join(json.dumps(d) + "\n" for d in self.docs)
            kubectl("apply", "-f", "-", input=text, env=self.k.env)  # cluster-wide, before the namespace
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        for d in self.docs:
            kubectl("delete", "pv", d["metadata"]["name"], "--ignore-not-found", "--wait=false",
                    check=False, env=self.k.env)
        for path in self.dirs:
            shutil.rmtree(path, ignore_errors=True)


def run_on_the_store():
    return raylaunch_run(components=("gcs-ft-rocksdb",), env={"RAYLAUNCH_HEAD_WATCH": "1s"})


def start_and_settle(k):
    k.start()
    wait_log(k, "training-0", STAYING, 300)
    eq(launched(k), 1, "program starts")
    claimed = k.exec("training-0", ["cat", "/data/gcs/raylaunch-cluster"])
    assert claimed[0] == 0 and claimed[1].strip(), f"the head's store is claimed for its cluster: {claimed}"


def assert_workers_kept(k):
    eq([k.pod(w).restart_count for w in WORKERS], [0, 0], "the workers' container restarts")
    for w in WORKERS:
        text = k.pod(w).log_text()
        assert "is a new cluster" not in text, f"{w} took the head for a new cluster:\n{text[-2000:]}"


def test_the_head_comes_back_on_its_store():
    """One cluster, the two ways a head goes in turn (one start-up: the real-Ray tests run one at a
    time, and each start is a minute of the suite)."""
    with run_on_the_store() as k, Store(k):
        start_and_settle(k)
        # The container killed: restarted in place, same pod, same IP.
        k.kill_container("training-0", signal.SIGKILL)
        wait_log(k, "training-0", SAME_CLUSTER, 180, restart=1)
        k.wait_for(lambda: launched(k) == 2, 300, "the program on the restarted head")
        wait_log(k, "training-0", STAYING, 240, restart=1)
        head = k.pod("training-0")
        eq(head.restart_count, 1, "the head's container restarts")
        again = head.runs[1]
        assert "RAYLAUNCH_RESTART_COUNT goes on from 1" in again.text(), again.text()[-3000:]
        assert_program_saw(again)
        assert_workers_kept(k)
        # The pod deleted: recreated by the StatefulSet controller with its claim and a new IP.
        k.delete_pod("training-0")
        new = k.wait_for(lambda: (p := k.pod("training-0")).uid != head.uid and p.running and p, 180,
                         "the head recreated")
        assert new.ip != head.ip, (new.ip, head.ip)
        wait_log(k, "training-0", SAME_CLUSTER, 180)
        k.wait_for(lambda: launched(k) == 3, 300, "the program on the recreated head")
        wait_log(k, "training-0", STAYING, 240)
        assert_program_saw(k.pod("training-0").runs[0])
        assert_workers_kept(k)


main(test_the_head_comes_back_on_its_store)
