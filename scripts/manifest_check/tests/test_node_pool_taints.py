"""Rule node-pool-taints: which pool a nodeSelector picks, and tolerations matched as the scheduler does."""
import unittest

from manifest_check.rules.node_pool_taints import node_pool_taint_rules, picks, tolerates

GPU = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}
EFA = {"key": "vpc.amazonaws.com/efa", "effect": "NoSchedule"}


def pool(name, labels=None, taints=(), requirements=()):
    return {"kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": {"metadata": {"labels": labels or {}},
                                  "spec": {"taints": list(taints), "requirements": list(requirements)}}}}


def statefulset(selector, tolerations):
    return {"kind": "StatefulSet", "metadata": {"name": "training"},
            "spec": {"template": {"metadata": {}, "spec": {"nodeSelector": selector, "tolerations": tolerations,
                                                           "containers": []}}}}


KIT = pool("gpu-training", {"role": "gpu-training"}, [GPU, EFA],
           [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p4de.24xlarge", "p5.48xlarge"]}])


class Tolerates(unittest.TestCase):
    def test_exists_with_the_key(self):
        self.assertTrue(tolerates({"key": "nvidia.com/gpu", "operator": "Exists"}, GPU))

    def test_exists_without_a_key_tolerates_everything(self):
        self.assertTrue(tolerates({"operator": "Exists"}, EFA))

    def test_another_key(self):
        self.assertFalse(tolerates({"key": "nvidia.com/gpu", "operator": "Exists"}, EFA))

    def test_another_effect(self):
        self.assertFalse(tolerates({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, GPU))

    def test_equal_compares_the_value(self):
        taint = {"key": "dedicated", "value": "train", "effect": "NoSchedule"}
        self.assertTrue(tolerates({"key": "dedicated", "value": "train"}, taint))  # operator defaults to Equal
        self.assertFalse(tolerates({"key": "dedicated", "value": "infer"}, taint))
        self.assertFalse(tolerates({"key": "dedicated"}, taint))


class Picks(unittest.TestCase):
    def test_its_label(self):
        self.assertTrue(picks({"role": "gpu-training"}, KIT))

    def test_its_label_and_an_instance_type_it_offers(self):
        self.assertTrue(picks({"role": "gpu-training", "node.kubernetes.io/instance-type": "p5.48xlarge"}, KIT))

    def test_an_instance_type_it_does_not_offer(self):
        self.assertFalse(picks({"role": "gpu-training", "node.kubernetes.io/instance-type": "g5.48xlarge"}, KIT))

    def test_its_name(self):
        self.assertTrue(picks({"karpenter.sh/nodepool": "gpu-training"}, KIT))
        self.assertFalse(picks({"karpenter.sh/nodepool": "other"}, KIT))

    def test_a_label_it_does_not_set(self):
        self.assertFalse(picks({"role": "gpu-training", "team": "ml"}, KIT))

    def test_only_well_known_labels_pick_no_pool(self):
        # Another pool of the cluster may offer the instance type without taints: not the kit's to judge.
        self.assertFalse(picks({"node.kubernetes.io/instance-type": "p5.48xlarge"}, KIT))


class Rule(unittest.TestCase):
    def problems(self, selector, tolerations, pools):
        units = [("build", [statefulset(selector, tolerations)])]
        return [message for _, _, message in node_pool_taint_rules(units, [("pools.yaml", p) for p in pools])]

    def test_both_taints_tolerated(self):
        both = [{"key": "nvidia.com/gpu", "operator": "Exists"}, {"key": "vpc.amazonaws.com/efa", "operator": "Exists"}]
        self.assertEqual(self.problems({"role": "gpu-training"}, both, [KIT]), [])

    def test_the_efa_toleration_missing(self):
        found = self.problems({"role": "gpu-training"}, [{"key": "nvidia.com/gpu", "operator": "Exists"}], [KIT])
        self.assertEqual(len(found), 1)
        self.assertIn("vpc.amazonaws.com/efa:NoSchedule of NodePool gpu-training (pools.yaml)", found[0])
        self.assertIn('[{"key": "vpc.amazonaws.com/efa", "operator": "Exists", "effect": "NoSchedule"}]', found[0])

    def test_prefer_no_schedule_needs_no_toleration(self):
        soft = pool("soft", {"role": "gpu-training"}, [{"key": "x", "effect": "PreferNoSchedule"}])
        self.assertEqual(self.problems({"role": "gpu-training"}, [], [soft]), [])

    def test_one_tolerated_pool_of_two_is_enough(self):
        open_pool = pool("open", {"role": "gpu-training"})
        self.assertEqual(self.problems({"role": "gpu-training"}, [], [KIT, open_pool]), [])

    def test_a_pod_on_no_pool_of_the_kit(self):
        self.assertEqual(self.problems({"role": "cpu"}, [], [KIT]), [])


if __name__ == "__main__":
    unittest.main()
