"""Container restart rules (Kubernetes 1.35, `restartPolicyRules`: the kubelet restarts a
container in place on the exit codes a rule names) against raylaunch's exit codes (rule
`restart-rules`; components/restart-in-place uses them).

For a raylaunch container, the codes that must end the pod are those a restart on the same node
cannot change (docs/run.md#exit-codes): success, a bad setting, a join barrier that timed out (a
missing pod is the scheduler's or the Job's to fix), a failed node check, a launch command that
cannot run, and SIGTERM or SIGINT (someone is ending the run). Every other code — Ray or the head
gone (69), the command's own failure, the OOM killer's 137 — is worth a restart in place.

Where: a Job (its pods restartPolicy Never). A StatefulSet's pods restart already; rules there
turn a permanent code into a Failed pod that its controller recreates at once, without back-off.
"""
from ..objects import containers, dig, pod_templates, raylaunch_subcommand

# code -> its name in docs/run.md's exit-code table (tests/manifests/selftest compares them).
ENDS_THE_POD = {0: "ok", 64: "EX_USAGE", 75: "EX_TEMPFAIL", 78: "EX_CONFIG", 126: "not executable",
                127: "not found", 130: "killed by signal N", 143: "killed by signal N"}
RULE = "restart-rules"


def restarted_codes(rule):
    """(operator, values) of a rule's exit codes, or None when it has none (restarts on any)."""
    codes = rule.get("exitCodes")
    if not isinstance(codes, dict):
        return None
    return codes.get("operator"), {v for v in codes.get("values") or [] if isinstance(v, int)}


def restart_rules(kind, where, pod_spec):
    problems = []
    for cname, container in containers(pod_spec):
        rules = container.get("restartPolicyRules")
        if not rules:
            continue
        here = f"{where}.{cname}"
        if kind != "Job":
            problems.append(f"rule {RULE}: {here}.restartPolicyRules belong in a Job: a {kind} restarts its pods "
                            "already, and a container a rule leaves ended is a Failed pod its controller recreates "
                            "at once, without back-off (use components/restart-in-place with a Job overlay)")
            continue
        if container.get("restartPolicy") is None:
            problems.append(f"rule {RULE}: {here}.restartPolicy must be set with restartPolicyRules (the API server "
                            "requires it: Never, so that only the rules restart)")
        if raylaunch_subcommand(container.get("command")) != "run":
            continue
        for i, rule in enumerate(rules):
            if not isinstance(rule, dict) or rule.get("action") != "Restart":
                continue
            found = restarted_codes(rule)
            if found is None:
                bad = set(ENDS_THE_POD)
            else:
                operator, values = found
                bad = values & set(ENDS_THE_POD) if operator == "In" else set(ENDS_THE_POD) - values
            if bad:
                names = ", ".join(f"{c} ({ENDS_THE_POD[c]})" for c in sorted(bad))
                problems.append(f"rule {RULE}: {here}.restartPolicyRules[{i}] restarts raylaunch on {names}: a "
                                "restart on the same node cannot change them, so they must end the pod (list them "
                                "under NotIn, or leave them out of In; docs/run.md#exit-codes)")
    return problems


def object_restart_rules(doc):
    kind = doc.get("kind")
    problems = []
    for where, template in pod_templates(doc):
        problems += restart_rules(kind, where, dig(template, "spec", default={}) or {})
    return problems
