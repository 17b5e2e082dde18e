"""Rule jobset-failure: a JobSet's failure rules against raylaunch's exit codes (docs/run.md#exit-codes).

A bad setting (64), a failed strict node check (78) and a launch command that cannot run (126,
127) fail the same way on every retry: each Job's podFailurePolicy turns them into FailJob (the
Job's failure reason is then PodFailurePolicy), and the JobSet's first rule for that reason must
be FailJobSet. What a fresh start can heal — the head or its GCS unreachable (69), a join barrier
that timed out because a pod was never scheduled (75), a stuck NCCL collective (76), the
command's own failure — fails the Job by its backoffLimit, and the JobSet restarts the whole Ray
cluster (RestartJobSet, within maxRestarts): never only one Job (RestartJob), since the other
Job's pods belong to a cluster that is gone.
"""
from ..objects import dig

RULE = "jobset-failure"
PERMANENT = {64, 78}      # at least these end the JobSet at once (126, 127 too where listed)
RETRYABLE = {69, 75, 76}  # never in a FailJob rule
RESTART_ALL = {"RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts"}
# A Job that failed by its backoffLimit (the batch/v1 JobFailed reasons).
RETRY_REASONS = ("BackoffLimitExceeded", "MaxFailedIndexesExceeded")


def _fail_codes(job_spec):
    codes = set()
    for rule in dig(job_spec, "podFailurePolicy", "rules", default=[]) or []:
        on = dig(rule, "onExitCodes") or {}
        if dig(rule, "action") == "FailJob" and on.get("operator") == "In":
            codes |= {c for c in on.get("values") or [] if isinstance(c, int)}
    return codes


def _actions(rules, rjob, reason):
    """The actions JobSet may take for a Job of `rjob` that failed for `reason`, whatever the
    Job's failure message: the first rule that matches decides, and a rule with
    onJobFailureMessagePatterns matches only some messages, so its action is one of the
    possible ones and the next rules are looked at too."""
    found = []
    for rule in rules:
        if not isinstance(rule, dict):
            continue
        targets, reasons = rule.get("targetReplicatedJobs") or [], rule.get("onJobFailureReasons") or []
        if (not targets or rjob in targets) and (not reasons or reason in reasons):
            if rule.get("action") not in found:
                found.append(rule.get("action"))
            if not rule.get("onJobFailureMessagePatterns"):  # an empty list matches every message
                return found
    if "RestartJobSet" not in found:
        found.append("RestartJobSet")  # JobSet's default when no rule matches
    return found


def _gets(actions):
    if len(actions) == 1:
        return f"gets {actions[0]}"
    return (f"may get {' or '.join(str(a) for a in actions)} (a rule's onJobFailureMessagePatterns decides by "
            "the Job's failure message)")


def jobset_failure_rules(doc):
    if doc.get("kind") != "JobSet":
        return []
    problems = []
    rules = dig(doc, "spec", "failurePolicy", "rules", default=[]) or []
    for job in dig(doc, "spec", "replicatedJobs", default=[]) or []:
        name = dig(job, "name")
        spec = dig(job, "template", "spec", default={}) or {}
        where = f"spec.replicatedJobs[{name}].template.spec"
        codes = _fail_codes(spec)
        if not PERMANENT <= codes:
            problems.append(f"rule {RULE}: {where}.podFailurePolicy needs a FailJob rule onExitCodes In "
                            f"{sorted(PERMANENT | {126, 127})} (lacks {sorted(PERMANENT - codes)}): a config error "
                            "fails the same way on every restart of the JobSet")
        if codes & RETRYABLE:
            problems.append(f"rule {RULE}: {where}.podFailurePolicy fails the JobSet on {sorted(codes & RETRYABLE)}: "
                            "69, 75 and 76 are retryable (a fresh cluster may heal them)")
        if spec.get("backoffLimit", 6) != 0:
            problems.append(f"rule {RULE}: {where}.backoffLimit {spec.get('backoffLimit', '6 (default)')}: a retried "
                            "pod rejoins no cluster; set 0 and let the JobSet restart the whole cluster")
        actions = _actions(rules, name, "PodFailurePolicy")
        if codes and actions != ["FailJobSet"]:
            problems.append(f"rule {RULE}: spec.failurePolicy: a {name} Job failed by its podFailurePolicy (64, 78) "
                            f"{_gets(actions)}; add a first rule {{action: FailJobSet, onJobFailureReasons: "
                            "[PodFailurePolicy]}")
        for reason in RETRY_REASONS:
            actions = _actions(rules, name, reason)
            if not set(actions) <= RESTART_ALL:
                problems.append(f"rule {RULE}: spec.failurePolicy: a {name} Job failed for {reason} (69, 75, 76, "
                                f"the command) {_gets(actions)}; the whole Ray cluster must restart (RestartJobSet)")
    if dig(doc, "spec", "failurePolicy", "maxRestarts", default=0) < 1:
        problems.append(f"rule {RULE}: spec.failurePolicy.maxRestarts {dig(doc, 'spec', 'failurePolicy', 'maxRestarts', default=0)}: "
                        "69, 75 and 76 are retryable, so allow at least one restart")
    return problems
