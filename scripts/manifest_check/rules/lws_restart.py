"""Rule lws-restart: a LeaderWorkerSet recreates the whole group when one of its pods restarts.

raylaunch's exit codes (docs/run.md#exit-codes) assume that a Ray cluster which lost a pod is
not mended in place: a worker whose head is gone or replaced exits 69, a head whose barrier
timed out 75, a stuck collective 76, and the head ends with its command's status. Under LWS's
restartPolicy None (or its deprecated Default) only that container restarts: a restarted head is
a new, empty Ray cluster that runs the command from its start while the old workers first wait
out their raylet's reconnect timeout, and a restarted worker joins a cluster whose collective
has already failed. RecreateGroupOnPodRestart (LWS's default) or RecreateGroupAfterStart
restarts the group together, which is what a 69, 75 or 76 asks for.
"""
from ..objects import dig

RULE = "lws-restart"
GROUP_RESTARTS = ("RecreateGroupOnPodRestart", "RecreateGroupAfterStart")


def lws_restart_rules(doc):
    if doc.get("kind") != "LeaderWorkerSet":
        return []
    policy = dig(doc, "spec", "leaderWorkerTemplate", "restartPolicy", default="RecreateGroupOnPodRestart")
    if dig(doc, "spec", "leaderWorkerTemplate", "size", default=1) > 1 and policy not in GROUP_RESTARTS:
        return [f"rule {RULE}: spec.leaderWorkerTemplate.restartPolicy {policy}: one pod restarts alone, into a Ray "
                "cluster it cannot rejoin (a worker exits 69 when its head is gone, a head restarted alone is a new "
                "cluster); use RecreateGroupOnPodRestart"]
    return []
