#!/usr/bin/python3
"""The lws overlay's CPU form (manifests/overlays/local-lws) under the real LeaderWorkerSet
controller (v0.9.0, built from its Go module and installed from its release manifests by
scripts/kube controllers): one group of 3, the leader the Ray head.

- The group runs the Ray program: raylaunch takes its role, its head and the node count from
  LWS's own variables (LWS_LEADER_ADDRESS, LWS_WORKER_INDEX, LWS_GROUP_SIZE; no --head-address,
  no --ordinal), the 3 nodes join, the pinned task of each pod runs in it.
- The leader deleted: LWS recreates the whole group (RecreateGroupOnPodRestart), every pod a new
  one, and the run starts again: the program runs on the new leader with all 3 new pods.
- A worker's container killed (a crash): LWS counts a restarted container of the group as the
  group failing and recreates it; the run starts again, once.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kubetest.scenario import assert_program_saw, launched, raylaunch_run, wait_log  # noqa: E402
from kubetest.testing import eq, main  # noqa: E402

LEADER = "training-0"
PODS = [LEADER, "training-0-1", "training-0-2"]   # LWS's names: <lws>-<group>[-<index>]
STAYING = "staying up (--on-success stay)"


def group_up(k, starts=1):
    """The newest pods of the group ran the program once more: 3/3 joined, every pinned task."""
    wait_log(k, LEADER, STAYING, 300)
    head = k.pod(LEADER).runs[-1]
    assert "3/3 nodes alive" in head.text(), head.text()[-3000:]
    assert_program_saw(head, PODS)
    k.wait_for(lambda: launched(k) == starts, 60, f"the program started {starts} time(s) over the pods")
    return {n: k.pod(n).uid for n in PODS}


def identity_from_lws(k):
    """Where the worker's role came from, as `raylaunch plan` in its pod says: LWS's variables,
    no setting of the overlay's."""
    code, out = k.exec("training-0-1", ["raylaunch", "plan"], timeout=60)
    eq(code, 0, f"raylaunch plan in training-0-1:\n{out[-2000:]}")
    for line in ("workload       LeaderWorkerSet: group training-0, worker index 1 of 3",
                 "nodes          3  (LWS_GROUP_SIZE)", "ordinal        1  (LWS_WORKER_INDEX)",
                 f"head           training-0.training.{k.namespace}:6379  (LWS_LEADER_ADDRESS)"):
        assert line in out, f"{line!r} not in the plan:\n{out[:2000]}"


def recreated(k, before):
    """Every pod of the group is a new one (new uid)."""
    return all(k.pods_named(n) and k.pod(n).uid != before[n] for n in PODS)


def test_the_group_runs_and_a_deleted_leader_recreates_it():
    with raylaunch_run("local-lws", replicas=None) as k:
        k.start()
        first = group_up(k)
        identity_from_lws(k)
        k.delete_pod(LEADER)
        k.wait_for(lambda: recreated(k, first), 180, "LWS to recreate the whole group")
        group_up(k, starts=2)
        eq(sorted(k.pod_names()), sorted(PODS), "the group's pods (one group, same names)")


def test_a_crashed_worker_recreates_the_group_once():
    with raylaunch_run("local-lws", replicas=None) as k:
        k.start()
        first = group_up(k)
        k.kill_container("training-0-2")
        k.wait_for(lambda: recreated(k, first), 180, "LWS to recreate the group after a container restart")
        group_up(k, starts=2)


main(test_the_group_runs_and_a_deleted_leader_recreates_it, test_a_crashed_worker_recreates_the_group_once)
