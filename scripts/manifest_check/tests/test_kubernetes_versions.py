"""What differs between the vendored Kubernetes versions: the real 1.32 and 1.35 definitions on
documents that use container restart rules, and the Target's verdicts."""
import os
import unittest

from manifest_check.errors import SetupError
from manifest_check.kubernetes_versions import Target, version_of_file
from manifest_check.rules.kubernetes_version import kubernetes_version_rules
from manifest_check.schemas import Schemas

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEFS = [os.path.join(REPO, "tests", "data", "schemas", f"k8s-v{v}-definitions.json") for v in ("1.32.0", "1.35.0")]


def job(container_fields=None, pod_fields=None):
    container = dict({"name": "ray", "image": "i"}, **(container_fields or {}))
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"template": {"spec": dict({"restartPolicy": "Never", "containers": [container]},
                                               **(pod_fields or {}))}}}


RESTART_RULES = {"restartPolicy": "Never",
                 "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [69]}}]}


class Schemas132And135(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.by_target = {t: Schemas(DEFS, [], Target(t)) for t in (None, "1.32", "1.35")}

    def test_restart_rules_need_1_35(self):
        failures, notes = self.by_target[None].errors(job(RESTART_RULES))
        self.assertEqual(failures, [])
        self.assertEqual(len(notes), 1)
        self.assertTrue(notes[0].startswith("needs Kubernetes 1.35: on 1.32, spec.template.spec.containers.0: "
                                            "Additional properties are not allowed ('restartPolicyRules'"), notes[0])

    def test_restart_rules_fail_for_a_1_32_cluster(self):
        failures, notes = self.by_target["1.32"].errors(job(RESTART_RULES))
        self.assertEqual(notes, [])
        self.assertEqual(len(failures), 1)
        self.assertTrue(failures[0].endswith("(Kubernetes 1.32; valid on 1.35)"), failures[0])

    def test_restart_rules_pass_for_a_1_35_cluster(self):
        self.assertEqual(self.by_target["1.35"].errors(job(RESTART_RULES)), ([], []))

    def test_a_field_no_version_has_fails_everywhere(self):
        for target, schemas in self.by_target.items():
            failures, notes = schemas.errors(job({"restartPolicyRulez": []}))
            self.assertEqual(len(failures), 1, target)
            self.assertNotIn("Kubernetes", failures[0], "an error every version reports names none")
            self.assertEqual(notes, [])

    def test_a_kind_only_1_35_serves(self):
        device_class = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "d"},
                        "spec": {}}
        failures, notes = self.by_target[None].errors(device_class)
        self.assertEqual(failures, [])
        self.assertEqual(notes, ["needs Kubernetes 1.35: on 1.32, (root): resource.k8s.io/v1 DeviceClass does not "
                                 "exist in that version"])


class PodLevelResources(unittest.TestCase):
    def verdicts(self, target):
        t = Target(target)
        t.known(["1.32", "1.35"])
        return kubernetes_version_rules(job(pod_fields={"resources": {"limits": {"cpu": "4"}}}), t)

    def test_noted_by_default(self):
        failures, notes = self.verdicts(None)
        self.assertEqual(failures, [])
        self.assertTrue(notes[0].startswith("needs Kubernetes 1.34: rule kubernetes-version: spec.template.spec.resources"))

    def test_fails_for_1_32_passes_for_1_35(self):
        self.assertEqual(len(self.verdicts("1.32")[0]), 1)
        self.assertEqual(self.verdicts("1.35"), ([], []))


class Versions(unittest.TestCase):
    def test_version_of_a_file(self):
        self.assertEqual(version_of_file("/x/k8s-v1.35.0-definitions.json"), "1.35")
        with self.assertRaises(SetupError):
            version_of_file("/x/definitions.json")

    def test_an_unvendored_target(self):
        with self.assertRaises(SetupError):
            Target("1.33").known(["1.32", "1.35"])
        with self.assertRaises(SetupError):
            Target("latest")


if __name__ == "__main__":
    unittest.main()
