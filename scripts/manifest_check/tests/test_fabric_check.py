"""Rule fabric-check: the gang fabric check's settings in a container (docs/run.md#the-gang-fabric-check---fabric-check)."""
import unittest

from manifest_check.rules.workload import fabric_check_rules


def container(env, efa=0):
    c = {"name": "ray", "env": [{"name": k, "value": v} for k, v in env.items()]}
    if efa:
        c["resources"] = {"limits": {"vpc.amazonaws.com/efa": efa}}
    return c


class FabricCheck(unittest.TestCase):
    def test_on_over_efa_with_efa_passes(self):
        self.assertEqual(fabric_check_rules("here", container({"RAYLAUNCH_FABRIC_CHECK": "on"}, efa=4)), [])

    def test_on_over_efa_without_efa_fails(self):
        problems = fabric_check_rules("here", container({"RAYLAUNCH_FABRIC_CHECK": "on"}))
        self.assertEqual(len(problems), 1)
        self.assertIn("no vpc.amazonaws.com/efa limit", problems[0])

    def test_another_provider_needs_no_efa(self):
        env = {"RAYLAUNCH_FABRIC_CHECK": "on", "RAYLAUNCH_FABRIC_PROVIDER": "tcp"}
        self.assertEqual(fabric_check_rules("here", container(env)), [])

    def test_bad_values(self):
        problems = fabric_check_rules("here", container({"RAYLAUNCH_FABRIC_CHECK": "true",
                                                         "RAYLAUNCH_FABRIC_CHECK_TIMEOUT": "soon"}))
        self.assertEqual(len(problems), 2)
        self.assertIn('"true" is not off or on', problems[0])
        self.assertIn('RAYLAUNCH_FABRIC_CHECK_TIMEOUT "soon"', problems[1])

    def test_off_or_absent_is_fine(self):
        self.assertEqual(fabric_check_rules("here", container({})), [])
        self.assertEqual(fabric_check_rules("here", container({"RAYLAUNCH_FABRIC_CHECK": "off"})), [])


if __name__ == "__main__":
    unittest.main()
