"""Rules lws-shape, lws-restart, start-order, jobset-shape and jobset-failure, on the kit's own
local-lws and local-jobset overlays as kubectl builds them, and on copies broken one way each."""
import copy
import os
import shutil
import subprocess
import unittest

import yaml

from manifest_check import rules
from manifest_check.objects import env_entry

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def build(overlay, kind):
    out = subprocess.run(["kubectl", "kustomize", os.path.join(REPO, "manifests", "overlays", overlay)],
                         check=True, capture_output=True, text=True).stdout
    return next(d for d in yaml.safe_load_all(out) if d and d.get("kind") == kind)


def messages(doc, rule):
    return [m for m in rules.object_rules(doc) if m.startswith(f"rule {rule}:")]


def ray(pod_template):
    return next(c for c in pod_template["spec"]["containers"] if c["name"] == "ray")


@unittest.skipUnless(shutil.which("kubectl"), "kubectl builds the overlays")
class LeaderWorkerSetRules(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lws = build("local-lws", "LeaderWorkerSet")

    def broken(self):
        return copy.deepcopy(self.lws)

    def test_the_kit_passes_every_rule(self):
        self.assertEqual(rules.object_rules(self.lws), [])

    def test_the_pod_template_gets_the_workload_rules(self):
        doc = self.broken()
        ray(doc["spec"]["leaderWorkerTemplate"]["workerTemplate"])["env"].remove(
            env_entry(ray(doc["spec"]["leaderWorkerTemplate"]["workerTemplate"]), "POD_NAMESPACE"))
        self.assertTrue(messages(doc, "namespace"))

    def test_lws_shape_size_and_nodes(self):
        doc = self.broken()
        doc["spec"]["leaderWorkerTemplate"]["size"] = 4
        self.assertEqual(len(messages(doc, "lws-shape")), 1)
        self.assertIn('RAYLAUNCH_NODES "3" != spec.leaderWorkerTemplate.size 4', messages(doc, "lws-shape")[0])

    def test_lws_shape_no_ordinal_override(self):
        doc = self.broken()
        ray(doc["spec"]["leaderWorkerTemplate"]["workerTemplate"])["env"].append(
            {"name": "RAYLAUNCH_HEAD_ADDRESS", "value": "x:6379"})
        self.assertIn("sets RAYLAUNCH_HEAD_ADDRESS", messages(doc, "lws-shape")[0])

    def test_lws_restart(self):
        for policy, count in (("None", 1), ("Default", 1), ("RecreateGroupAfterStart", 0)):
            doc = self.broken()
            doc["spec"]["leaderWorkerTemplate"]["restartPolicy"] = policy
            self.assertEqual(len(messages(doc, "lws-restart")), count, policy)

    def test_start_order(self):
        doc = self.broken()
        doc["spec"]["startupPolicy"] = "LeaderReady"
        self.assertIn("startupPolicy LeaderReady", messages(doc, "start-order")[0])
        del doc["spec"]["startupPolicy"]  # LWS's default, LeaderCreated
        self.assertEqual(messages(doc, "start-order"), [])


@unittest.skipUnless(shutil.which("kubectl"), "kubectl builds the overlays")
class JobSetRules(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.jobset = build("local-jobset", "JobSet")

    def job(self, doc, name):
        return next(j for j in doc["spec"]["replicatedJobs"] if j["name"] == name)

    def test_the_kit_passes_every_rule(self):
        self.assertEqual(rules.object_rules(self.jobset), [])

    def test_jobset_shape_names_and_counts(self):
        doc = copy.deepcopy(self.jobset)
        self.job(doc, "workers")["name"] = "node"
        self.assertIn("raylaunch's shape is head (1 pod) and workers", messages(doc, "jobset-shape")[0])
        doc = copy.deepcopy(self.jobset)
        self.job(doc, "workers")["template"]["spec"]["completions"] = 3
        found = messages(doc, "jobset-shape")
        self.assertTrue(any('RAYLAUNCH_NODES "3" != 4' in m for m in found), found)
        self.assertTrue(any("parallelism 2 != completions 3" in m for m in found), found)
        doc = copy.deepcopy(self.jobset)
        self.job(doc, "head")["replicas"] = 2
        self.assertIn("replicas 2: one Job per replicated job", messages(doc, "jobset-shape")[0])

    def test_jobset_shape_needs_jobset_name_and_success_policy(self):
        doc = copy.deepcopy(self.jobset)
        pod = self.job(doc, "head")["template"]["spec"]["template"]
        ray(pod)["env"].remove(env_entry(ray(pod), "JOBSET_NAME"))
        doc["spec"]["successPolicy"] = {"operator": "Any"}
        found = messages(doc, "jobset-shape")
        self.assertTrue(any("needs env JOBSET_NAME" in m for m in found), found)
        self.assertTrue(any("spec.successPolicy must be" in m for m in found), found)

    def test_jobset_failure_config_errors_end_it(self):
        doc = copy.deepcopy(self.jobset)
        doc["spec"]["failurePolicy"]["rules"] = []
        found = messages(doc, "jobset-failure")
        self.assertEqual(len(found), 2, found)  # head and workers: PodFailurePolicy gets RestartJobSet
        self.assertIn("gets RestartJobSet; add a first rule {action: FailJobSet", found[0])

    def test_jobset_failure_message_patterns_match_only_some_failures(self):
        doc = copy.deepcopy(self.jobset)
        rules = doc["spec"]["failurePolicy"]["rules"]
        self.assertEqual(messages(doc, "jobset-failure"), [])
        # A FailJobSet rule for config errors that only some messages match: the others get the default.
        for rule in rules:
            if "PodFailurePolicy" in (rule.get("onJobFailureReasons") or []):
                rule["onJobFailureMessagePatterns"] = ["exit code 78"]
        found = messages(doc, "jobset-failure")
        self.assertTrue(found, found)
        self.assertIn("may get FailJobSet or RestartJobSet (a rule's onJobFailureMessagePatterns decides", found[0])
        # A RestartJob rule before the whole-cluster restart, for some messages only: still wrong.
        doc = copy.deepcopy(self.jobset)
        doc["spec"]["failurePolicy"]["rules"].insert(0, {"name": "oom", "action": "RestartJob",
                                                         "onJobFailureReasons": ["BackoffLimitExceeded"],
                                                         "onJobFailureMessagePatterns": ["OOMKilled"]})
        self.assertTrue(any("for BackoffLimitExceeded" in m and "may get RestartJob or" in m
                            for m in messages(doc, "jobset-failure")), messages(doc, "jobset-failure"))

    def test_jobset_failure_retryable_codes_restart_it(self):
        doc = copy.deepcopy(self.jobset)
        self.job(doc, "workers")["template"]["spec"]["podFailurePolicy"]["rules"][0]["onExitCodes"]["values"] = [64, 69, 78]
        self.assertIn("fails the JobSet on [69]", messages(doc, "jobset-failure")[0])
        doc = copy.deepcopy(self.jobset)
        doc["spec"]["failurePolicy"]["rules"].append({"name": "all", "action": "RestartJob"})
        self.assertTrue(any("gets RestartJob;" in m for m in messages(doc, "jobset-failure")))
        doc = copy.deepcopy(self.jobset)
        doc["spec"]["failurePolicy"]["maxRestarts"] = 0
        self.assertIn("maxRestarts 0", messages(doc, "jobset-failure")[0])
        doc = copy.deepcopy(self.jobset)
        self.job(doc, "head")["template"]["spec"]["podFailurePolicy"]["rules"] = []
        self.assertIn("lacks [64, 78]", messages(doc, "jobset-failure")[0])


if __name__ == "__main__":
    unittest.main()


def without_zone_affinity(pod_template):
    pod_template["spec"].get("affinity", {}).pop("podAffinity", None)
    pod_template["spec"].get("nodeSelector", {}).pop("topology.kubernetes.io/zone", None)


@unittest.skipUnless(shutil.which("kubectl"), "kubectl builds the overlays")
class EfaPlacementOfOneCluster(unittest.TestCase):
    """efa-placement counts the pods of one Ray cluster: an LWS group (its size, with one group),
    a JobSet's Jobs together (a head Job of one pod and the workers' Job)."""

    def test_one_lws_group_with_efa_must_share_a_zone(self):
        doc = build("lws", "LeaderWorkerSet")
        self.assertEqual(doc["spec"].get("replicas", 1), 1)
        self.assertEqual(messages(doc, "efa-placement"), [])
        templates = [t for f, t in doc["spec"]["leaderWorkerTemplate"].items() if f.endswith("Template")]
        for template in templates:  # the kit's: one template for leader and workers
            without_zone_affinity(template)
        found = messages(doc, "efa-placement")
        self.assertEqual(len(found), len(templates), found)
        self.assertIn(f"runs {doc['spec']['leaderWorkerTemplate']['size']} pods with EFA devices", found[0])

    def test_a_jobset_head_job_of_one_pod_is_part_of_the_cluster(self):
        doc = build("jobset", "JobSet")
        self.assertEqual(messages(doc, "efa-placement"), [])
        head = doc["spec"]["replicatedJobs"][0]
        self.assertEqual(head["template"]["spec"].get("parallelism", 1), 1)
        without_zone_affinity(head["template"]["spec"]["template"])
        found = messages(doc, "efa-placement")
        self.assertEqual(len(found), 1, found)
        self.assertIn(f"replicatedJobs[{head['name']}]", found[0])
