"""Rule start-order: LWS creates a group's workers with its leader, not once the leader is Ready.

raylaunch's workers wait for their head on their own (`run` polls the head's GCS within
RAYLAUNCH_JOIN_TIMEOUT), so nothing needs LWS to hold them back. startupPolicy LeaderReady
creates the workers only after the leader's readinessProbe passes (/readyz: its GCS answers),
so their scheduling, node launch and image pulls (minutes for a 15-20 GB image) come out of the
head's join timeout instead of running beside the head's own start. LeaderCreated is LWS's
default.
"""
from ..objects import dig

RULE = "start-order"


def start_order_rules(doc):
    if doc.get("kind") != "LeaderWorkerSet":
        return []
    policy = dig(doc, "spec", "startupPolicy", default="LeaderCreated")
    if policy != "LeaderCreated":
        return [f"rule {RULE}: spec.startupPolicy {policy}: the workers would be created only once the leader is "
                "Ready, spending the head's RAYLAUNCH_JOIN_TIMEOUT on their scheduling and image pulls; raylaunch's "
                "workers wait for their head themselves: use LeaderCreated"]
    return []
