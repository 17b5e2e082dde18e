"""The validator's reader of launcher/plan/env_rules.json, in step with raylaunch's (env_rules.cpp)."""
import unittest

from manifest_check import env_rules


class EnvRulesTest(unittest.TestCase):
    def test_the_shipped_table_loads(self):
        rules = env_rules.load()
        self.assertIn("NCCL_SOCKET_IFNAME", rules.by_name)

    def test_an_exclusion_list_without_pod_id_link_is_a_problem(self):
        rules = env_rules.load()
        self.assertEqual(len(rules.problems("NCCL_SOCKET_IFNAME", "^lo,docker,veth")), 1)
        self.assertEqual(rules.problems("NCCL_SOCKET_IFNAME", "^lo,docker,veth,pod-id-link"), [])
        # An inclusion list names what NCCL may use: pod-id-link0 is not among them.
        self.assertEqual(rules.problems("NCCL_SOCKET_IFNAME", "=eth0"), [])
        self.assertEqual(rules.problems("NCCL_SOCKET_IFNAME", None), [])
        self.assertEqual(len(rules.problems("GLOO_SOCKET_IFNAME", "pod-id-link0")), 1)

    def test_unknown_tests_are_refused(self):
        self.assertTrue(env_rules.valid_when({"excludes_without": "x"}))
        self.assertFalse(env_rules.valid_when({"excludes_without": ["x"]}))
        self.assertFalse(env_rules.valid_when({"starts_with": "x"}))


if __name__ == "__main__":
    unittest.main()
