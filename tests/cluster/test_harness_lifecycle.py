#!/usr/bin/python3
"""Termination and restarts: the grace period (SIGTERM, then SIGKILL), exit codes 128+N,
termination messages (File and FallbackToLogsOnError), restartPolicy and back-off, a deleted
StatefulSet pod recreated; the Job controller's successPolicy, podFailurePolicy and
backoffLimitPerIndex on the indexed-job overlay."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import manifest  # noqa: E402
from harness.testing import eq, info, main, testpod_cluster  # noqa: E402


def ready(c, n):
    c.wait_for(lambda: len(c.pods) == n and all(p.ready for p in c.pods), 30, f"{n} pods ready")


def test_grace_period_then_sigkill_and_recreation():
    with testpod_cluster("p4de", replicas=2, env={"TESTPOD_ON_TERM": "default"}, grace=0.5) as c:
        c.start()
        ready(c, 2)
        old = c.pod("training-1")
        c.delete_pod("training-1")
        c.wait_for(lambda: old.gone, 20, "training-1 gone")
        run = old.runs[-1]
        eq((run.exit_code, run.signal), (137, 9), "PID 1 without a SIGTERM handler: killed at the deadline")
        kill = next(e.t for e in c.events if e.pod == "training-1" and e.reason == "Killing")
        assert run.finished_at - kill >= 0.5, (kill, run.finished_at)
        # The StatefulSet recreates it: same name and hostname, a new pod and IP.
        new = c.wait_for(lambda: c.pod("training-1") is not old and c.pod("training-1").ready
                         and c.pod("training-1"), 20, "training-1 recreated")
        assert new.uid != old.uid and new.ip != old.ip, (new, old)
        eq(info(new)["hostname"], "training-1", "hostname")
        eq(c.dns.wait("training-1.training.default.svc.cluster.local"), [new.ip], "DNS follows")
        # Held, a deleted pod stays away (a head that is gone), until released.
        c.hold("training-1")
        c.delete_pod("training-1", grace=0)
        c.wait_for(lambda: new.gone, 20, "training-1 gone again")
        c.dns.wait("training-1.training.default.svc.cluster.local", present=False)
        assert c.pod("training-1") is new and len(c.pods) == 1, c.pods
        c.release("training-1")
        c.wait_for(lambda: c.pod("training-1") is not new and c.pod("training-1").ready, 20, "back")


def test_ordered_ready_creates_one_pod_after_the_other():
    docs = manifest.render("p4de", replicas=3)
    manifest.workload(docs)["spec"]["podManagementPolicy"] = "OrderedReady"
    with testpod_cluster(docs=docs, env={"TESTPOD_LISTEN_AFTER": "0.3"}) as c:
        c.start()
        ready(c, 3)
        eq([p.name for p in c.all_pods], ["training-0", "training-1", "training-2"], "one pod each")
        ready_at = {e.pod: e.t for e in c.events if e.reason == "Ready"}
        for prev, nxt in zip(c.all_pods, c.all_pods[1:]):
            assert nxt.created_at >= ready_at[prev.name], f"{nxt.name} before {prev.name} was ready"


def test_sigterm_handled_within_the_grace_period():
    with testpod_cluster("p4de", replicas=1, env={"TESTPOD_ON_TERM": "exit:0:0.2",
                                                   "TESTPOD_MESSAGE": "clean"}) as c:
        c.start()
        ready(c, 1)
        pod = c.pods[0]
        c.stop()
        run = pod.runs[-1]
        eq((run.exit_code, run.signal, run.message), (0, None, "clean"), "exit, signal, message")
        assert "signal SIGTERM" in run.text(), run.text()


def test_crash_restarts_with_back_off_and_keeps_messages():
    with testpod_cluster("p4de", replicas=1, time_scale=0.05) as c:
        c.start()
        ready(c, 1)
        pod = c.pods[0]
        c.http_get("training-0", 8081, "/exit?code=3")
        c.wait_for(lambda: pod.restart_count == 1 and pod.ready, 20, "first restart")
        c.http_get("training-0", 8081, "/exit?code=5")
        c.wait_for(lambda: pod.restart_count == 2 and pod.ready, 20, "second restart")
        eq(pod.exit_codes, [3, 5], "exit codes")
        # FallbackToLogsOnError (the overlay's policy): no message written, so the log's tail.
        assert pod.runs[0].message.endswith("exiting 3"), pod.runs[0].message[-200:]
        backoffs = [e.message for e in c.events if e.reason == "BackOff"]
        eq(backoffs, ["restarting the container in 0.5 s"], "back-off: none, then 10 s (scaled)")


def job_docs(replicas, **spec):
    """The overlay's Job with `spec` fields set (None: removed)."""
    docs = manifest.render("indexed-job", replicas=replicas)
    job_spec = manifest.workload(docs)["spec"]
    for key, value in spec.items():
        if value is None:
            job_spec.pop(key, None)
        else:
            job_spec[key] = value
    return docs


def exit_on_index(codes, after=0.3):
    """mutate_pod: index i exits with codes[i] after `after` seconds; others run on."""
    def mutate(pod):
        index = int(pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"])
        if index in codes:
            pod["spec"]["containers"][0]["env"] += [
                {"name": "TESTPOD_EXIT_AFTER", "value": str(after)},
                {"name": "TESTPOD_EXIT_CODE", "value": str(codes[index])}]
        return pod
    return mutate


def test_job_success_policy_terminates_the_other_indexes():
    with testpod_cluster("indexed-job", replicas=3) as c:
        c.start()
        job = c.job
        # Index 0 succeeds only once every pod has its SIGTERM handler (it says "listening" after):
        # a PID 1 without one ignores SIGTERM, which a slow start under load made a 137 here.
        c.wait_for(lambda: len(job.pods) == 3 and all(p.current and "listening" in p.current.text()
                                                       for p in job.pods), 60, "3 pods listening")
        c.http_get(job.pods[0].hostname, 8081, "/exit?code=0")
        c.wait_for(lambda: job.result, 30, "the Job finished")
        eq(job.status()["conditions"], ["SuccessCriteriaMet", "Complete"], "conditions")
        eq(job.status()["completedIndexes"], "0", "completed indexes")
        eq(len(job.pods), 3, "no pod created after success")
        for p in job.pods[1:]:
            eq((p.gone, p.exit_codes), (True, [143]), f"{p.name} terminated with SIGTERM")
        assert not any(p.running for p in c.all_pods)


def test_job_pod_failure_policy_fails_the_job():
    with testpod_cluster("indexed-job", replicas=3, mutate_pod=exit_on_index({1: 64})) as c:
        c.start()
        job = c.job
        c.wait_for(lambda: job.result, 30, "the Job finished")
        eq(job.result, "Failed", "exit 64 is FailJob in the overlay's podFailurePolicy")
        eq(len(job.pods), 3, "nothing retried")
        assert not any(p.running for p in c.all_pods)


def test_job_backoff_limit_per_index():
    # Without the overlay's maxFailedIndexes: 0, which fails the whole Job at the first failed
    # index (the test would race it): the other indexes run on.
    docs = job_docs(2, backoffLimitPerIndex=1, maxFailedIndexes=None)
    with testpod_cluster(docs=docs, time_scale=0.01, mutate_pod=exit_on_index({1: 3})) as c:
        c.start()
        job = c.job
        c.wait_for(lambda: job.status()["failedIndexes"] == "1", 30, "index 1 failed")
        index1 = [p for p in job.pods if p.hostname == "training-1"]
        eq(len(index1), 2, "one retry for index 1 (backoffLimitPerIndex 1)")
        assert index1[0].name != index1[1].name, "a new pod, not a restart"
        eq([p.exit_codes for p in index1], [[3], [3]], "exit codes")
        assert job.result is None and c.pod("training-0").running, "index 0 still runs"


if __name__ == "__main__":
    main(test_grace_period_then_sigkill_and_recreation,
         test_ordered_ready_creates_one_pod_after_the_other,
         test_sigterm_handled_within_the_grace_period,
         test_crash_restarts_with_back_off_and_keeps_messages,
         test_job_success_policy_terminates_the_other_indexes,
         test_job_pod_failure_policy_fails_the_job,
         test_job_backoff_limit_per_index)
