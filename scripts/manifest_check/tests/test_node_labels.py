"""Rule node-labels: what a pod says of its node through Ray's labels is what the node is."""
import unittest

from manifest_check.rules.node_labels import node_label_rules


def pod(env, node_selector=None, affinity_values=None):
    spec = {"containers": [{"name": "ray", "env": env}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    if affinity_values is not None:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": affinity_values}]}]}}}
    return spec, spec["containers"][0]


def problems(env, **kw):
    spec, container = pod(env, **kw)
    return node_label_rules("spec.template.spec.containers[ray]", spec, container)


ZONE_FROM_POD = {"name": "RAYLAUNCH_ZONE",
                 "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['topology.kubernetes.io/zone']"}}}


class NodeLabels(unittest.TestCase):
    def test_zone_from_the_downward_api_or_pinned(self):
        self.assertEqual(problems([ZONE_FROM_POD]), [])
        self.assertEqual(problems([{"name": "RAYLAUNCH_ZONE", "value": "us-west-2a"}],
                                  node_selector={"topology.kubernetes.io/zone": "us-west-2a"}), [])
        [p] = problems([{"name": "RAYLAUNCH_ZONE", "value": "us-west-2a"}])
        self.assertIn("names a zone the pod is not pinned to", p)
        [p] = problems([{"name": "RAYLAUNCH_REGION",
                         "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['topology.kubernetes.io/zone']"}}}])
        self.assertIn("metadata.labels['topology.kubernetes.io/region']", p)

    def test_capacity_type_is_pinned_by_the_node_selector(self):
        ondemand = [{"name": "RAYLAUNCH_CAPACITY_TYPE", "value": "on-demand"}]
        self.assertEqual(problems(ondemand, node_selector={"karpenter.sh/capacity-type": "on-demand"}), [])
        self.assertEqual(problems([{"name": "RAYLAUNCH_CAPACITY_TYPE", "value": "CAPACITY_BLOCK"}],
                                  node_selector={"eks.amazonaws.com/capacityType": "CAPACITY_BLOCK"}), [])
        self.assertEqual(problems(ondemand, affinity_values=["on-demand"]), [])
        [p] = problems(ondemand, affinity_values=["on-demand", "reserved"])  # either: the label could lie
        self.assertIn("not pinned to that capacity type", p)
        [p] = problems(ondemand, node_selector={"karpenter.sh/capacity-type": "spot"})
        self.assertIn("add nodeSelector karpenter.sh/capacity-type: on-demand", p)
        [p] = problems([{"name": "RAYLAUNCH_CAPACITY_TYPE", "value": "preemptible"}])
        self.assertIn("is not one raylaunch takes", p)

    def test_extra_labels_in_label_syntax(self):
        self.assertEqual(problems([{"name": "RAYLAUNCH_NODE_LABELS", "value": "team=vision,example.com/tier=gold"}]), [])
        self.assertEqual(len(problems([{"name": "RAYLAUNCH_NODE_LABELS", "value": "team"}])), 1)
        self.assertEqual(len(problems([{"name": "RAYLAUNCH_NODE_LABELS", "value": "a=1,a=2"}])), 1)
        self.assertEqual(len(problems([{"name": "RAYLAUNCH_NODE_LABELS", "value": "k=" + "v" * 64}])), 1)
        self.assertEqual(len(problems([{"name": "RAYLAUNCH_DEFAULT_LABELS", "value": "yes"}])), 1)


if __name__ == "__main__":
    unittest.main()
