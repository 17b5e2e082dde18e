"""The head's GCS node table as Ray itself reads it: run inside the head pod with the venv's
python (`kubectl exec training-0 -- <venv>/bin/python ray_nodes.py`), it asks the GCS with
Ray's own client (ray._raylet.GcsClient, what the dashboard and Serve use) and prints one line
per node, oldest first:

  ALIVE training-1 <node id hex> 198.18.1.2 -
  DEAD training-2 <node id hex> 198.18.1.3 AUTOSCALER_DRAIN_PREEMPTED Node received SIGTERM; ...

state, node name, node id, node IP, and for a dead node the death reason and message Ray
recorded (GcsNodeInfo.death_info). An independent view of what raylaunch counts: the tests compare it
with raylaunch's own lines.

  ray_nodes.py [--address 127.0.0.1:6379]
"""
import argparse
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--address", default="127.0.0.1:6379")
    args = p.parse_args()
    from ray._raylet import GcsClient
    from ray.core.generated import common_pb2, gcs_pb2

    nodes = GcsClient(address=args.address).get_all_node_info(timeout=10)
    for node_id, info in sorted(nodes.items(), key=lambda kv: kv[1].start_time_ms):
        state = gcs_pb2.GcsNodeInfo.GcsNodeState.Name(info.state)
        death = "-"
        if info.state == gcs_pb2.GcsNodeInfo.DEAD and info.HasField("death_info"):
            reason = common_pb2.NodeDeathInfo.Reason.Name(info.death_info.reason)
            death = f"{reason} {' '.join(info.death_info.reason_message.split())}".strip()
        print(f"{state} {info.node_name} {node_id.hex()} {info.node_manager_address} {death}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
