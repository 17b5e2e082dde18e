"""Rule lws-shape: a LeaderWorkerSet group is one Ray cluster whose leader is the head.

raylaunch takes the pod's ordinal from LWS_WORKER_INDEX (0: the leader) and the node count from
LWS_GROUP_SIZE (plan/workload_identity.cpp), and refuses a RAYLAUNCH_NODES that contradicts it
(exit 64): so RAYLAUNCH_NODES must equal leaderWorkerTemplate.size, and nothing may set the
ordinal or the head's address by hand, or the leader would stop being the head.
"""
from ..objects import as_int, containers, dig, env_entry, env_literal, pod_templates, raylaunch_subcommand

RULE = "lws-shape"
# Settings that would override what LWS says about the pod (config/settings.cpp).
OVERRIDES = ("RAYLAUNCH_ORDINAL", "RAYLAUNCH_HEAD_ADDRESS")


def lws_shape_rules(doc):
    if doc.get("kind") != "LeaderWorkerSet":
        return []
    problems = []
    size = dig(doc, "spec", "leaderWorkerTemplate", "size", default=1)
    for where, template in pod_templates(doc):
        for cname, container in containers(template["spec"]):
            if raylaunch_subcommand(container.get("command")) != "run":
                continue
            here = f"{where}.{cname}"
            _, nodes = env_literal(container, "RAYLAUNCH_NODES")
            if nodes is not None and as_int(nodes) != size:
                problems.append(f'rule {RULE}: {here} RAYLAUNCH_NODES "{nodes}" != spec.leaderWorkerTemplate.size '
                                f"{size}: raylaunch refuses a node count that contradicts LWS_GROUP_SIZE (exit 64)")
            for name in OVERRIDES:
                if env_entry(container, name) is not None:
                    problems.append(f"rule {RULE}: {here} sets {name}: under LWS the leader (LWS_WORKER_INDEX 0) is "
                                    "the head and LWS_LEADER_ADDRESS its address; remove it")
    return problems
