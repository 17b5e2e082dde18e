"""Rule k8s-token: Ray's Kubernetes token mode with its token, its settings and its RBAC."""
import copy
import unittest

from manifest_check.rules.generic import is_secret_name
from manifest_check.rules.k8s_token import k8s_token_cross_rules, k8s_token_rules, k8s_token_unit_rules

ENV = [{"name": "RAY_AUTH_MODE", "value": "token"}, {"name": "RAY_ENABLE_K8S_TOKEN_AUTH", "value": "true"},
       {"name": "RAY_CLUSTER_NAME", "value": "training"},
       {"name": "RAY_CLUSTER_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}]
TOKEN = {"name": "ray-token", "projected": {"sources": [{"serviceAccountToken": {"path": "token",
                                                                                 "expirationSeconds": 3600}}]}}
MOUNT = {"name": "ray-token", "mountPath": "/var/run/secrets/ray.io/serviceaccount", "readOnly": True}


def statefulset(env=ENV, volume=TOKEN, mounts=(MOUNT,), automount=True, account="training"):
    spec = {"serviceAccountName": account, "volumes": [copy.deepcopy(volume)],
            "containers": [{"name": "ray", "command": ["raylaunch", "run", "--", "python3", "t.py"],
                            "env": copy.deepcopy(list(env)), "volumeMounts": list(mounts)}]}
    if automount is not None:
        spec["automountServiceAccountToken"] = automount
    return {"kind": "StatefulSet", "metadata": {"name": "training"}, "spec": {"template": {"spec": spec}}}


def role(kind, name, rules):
    return {"kind": kind, "metadata": {"name": name}, "rules": rules}


def binding(kind, role_kind, name, account="training"):
    return {"kind": kind, "metadata": {"name": name}, "roleRef": {"kind": role_kind, "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": account}]}


RAY_USER = [role("Role", "ray-user", [{"apiGroups": ["ray.io"], "resources": ["rayclusters"],
                                       "resourceNames": ["training"], "verbs": ["ray:write"]}]),
            binding("RoleBinding", "Role", "ray-user")]
REVIEW = [role("ClusterRole", "review", [
    {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]},
    {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]}]),
    binding("ClusterRoleBinding", "ClusterRole", "review")]


def one(found, prefix="rule k8s-token: spec.template.spec.containers[ray]: "):
    assert len(found) == 1, found
    assert found[0].startswith(prefix), found[0]
    return found[0]


class K8sTokenPods(unittest.TestCase):
    def test_the_component_shape_passes(self):
        self.assertEqual(k8s_token_rules(statefulset()), [])
        self.assertEqual(k8s_token_rules(statefulset(env=ENV[:1], volume={"name": "x", "emptyDir": {}}, mounts=())), [])

    def test_settings(self):
        self.assertIn("without RAY_AUTH_MODE=token", one(k8s_token_rules(statefulset(env=ENV[1:]))))
        static = ENV + [{"name": "RAY_AUTH_TOKEN", "valueFrom": {"secretKeyRef": {"name": "s", "key": "token"}}}]
        self.assertIn("RAY_AUTH_TOKEN are both set", one(k8s_token_rules(statefulset(env=static))))
        self.assertIn("without RAY_CLUSTER_NAME:", one(k8s_token_rules(statefulset(env=ENV[:2] + ENV[3:]))))

    def test_the_projected_token(self):
        self.assertIn("no projected serviceAccountToken is mounted", one(k8s_token_rules(statefulset(mounts=()))))
        elsewhere = dict(MOUNT, mountPath="/var/run/secrets/ray")
        self.assertIn("no projected serviceAccountToken", one(k8s_token_rules(statefulset(mounts=(elsewhere,)))))
        audience = copy.deepcopy(TOKEN)
        audience["projected"]["sources"][0]["serviceAccountToken"]["audience"] = "ray.io"
        self.assertIn('has audience "ray.io": Ray\'s TokenReview names no audience',
                      one(k8s_token_rules(statefulset(volume=audience))))
        short = copy.deepcopy(TOKEN)
        short["projected"]["sources"][0]["serviceAccountToken"]["expirationSeconds"] = 300
        self.assertIn("expirationSeconds 300", one(k8s_token_rules(statefulset(volume=short))))

    def test_the_api_token_and_the_account(self):
        self.assertIn("automountServiceAccountToken: false and nothing at",
                      one(k8s_token_rules(statefulset(automount=False))))
        self.assertIn("`default` ServiceAccount",
                      one(k8s_token_rules(statefulset(account="default")), "rule k8s-token: spec.template.spec: "))


    def test_the_switch_is_no_credential(self):
        # rule plaintext-secret: RAY_ENABLE_K8S_TOKEN_AUTH turns the mode on, RAY_AUTH_TOKEN is the token
        self.assertFalse(is_secret_name("RAY_ENABLE_K8S_TOKEN_AUTH"))
        self.assertTrue(is_secret_name("RAY_AUTH_TOKEN"))


class K8sTokenRbac(unittest.TestCase):
    def test_ray_write_for_the_pods_account(self):
        self.assertEqual(k8s_token_unit_rules([statefulset()] + RAY_USER), [])
        [(index, message)] = k8s_token_unit_rules([statefulset()])
        self.assertEqual(index, 0)
        self.assertIn('grants the verb ray:write on rayclusters.ray.io "training"', message)
        other = copy.deepcopy(RAY_USER)
        other[0]["rules"][0]["resourceNames"] = ["blue-training"]
        self.assertEqual(len(k8s_token_unit_rules([statefulset()] + other)), 1)

    def test_an_account_that_turns_the_api_token_off(self):
        account = {"kind": "ServiceAccount", "metadata": {"name": "training"}, "automountServiceAccountToken": False}
        [(_, message)] = k8s_token_unit_rules([statefulset(automount=None), account] + RAY_USER)
        self.assertIn("ServiceAccount training has automountServiceAccountToken: false", message)
        self.assertEqual(k8s_token_unit_rules([statefulset(), account] + RAY_USER), [])

    def test_reviews_from_a_file_beside_the_components(self):
        units = [("kustomize(o)", [statefulset()] + RAY_USER), ("c/token-review.yaml", REVIEW)]
        self.assertEqual(k8s_token_cross_rules(units, lambda s: {"c/token-review.yaml"} if s == "kustomize(o)" else set()), [])
        [(source, index, message)] = k8s_token_cross_rules(units, lambda s: set())
        self.assertEqual((source, index), ("kustomize(o)", 0))
        self.assertIn("create tokenreviews.authentication.k8s.io and subjectaccessreviews.authorization.k8s.io", message)
        half = [("kustomize(o)", [statefulset()] + REVIEW[:1] + [dict(REVIEW[1], subjects=[])])]
        self.assertEqual(len(k8s_token_cross_rules(half, lambda s: set())), 1)


if __name__ == "__main__":
    unittest.main()
