"""Rule gcs-store-volume: the head's RocksDB store on a claim that outlives the pod, one writer."""
import copy
import unittest

from manifest_check.rules.gcs_store import gcs_store_rules

ROCKSDB = [{"name": "RAY_gcs_storage", "value": "rocksdb"}, {"name": "RAY_gcs_storage_path", "value": "/data/gcs"}]
MOUNT = [{"name": "gcs-store", "mountPath": "/data/gcs"}]
CLAIM = {"metadata": {"name": "gcs-store"},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}


def statefulset(env=ROCKSDB, mounts=MOUNT, claims=(CLAIM,), volumes=(), replicas=4, startup=None):
    container = {"name": "ray", "command": ["raylaunch", "run", "--", "python3", "t.py"],
                 "env": list(env), "volumeMounts": list(mounts)}
    if startup is not None:
        container["startupProbe"] = startup
    return {"kind": "StatefulSet", "metadata": {"name": "training"},
            "spec": {"replicas": replicas, "volumeClaimTemplates": [copy.deepcopy(c) for c in claims],
                     "template": {"spec": {"containers": [container], "volumes": list(volumes)}}}}


def one(doc):
    found = gcs_store_rules(doc)
    assert len(found) == 1, found
    assert found[0].startswith("rule gcs-store-volume: spec.template.spec.containers[ray]: "), found[0]
    return found[0]


class GcsStoreVolume(unittest.TestCase):
    def test_the_component_shape_passes(self):
        self.assertEqual(gcs_store_rules(statefulset()), [])
        # without the store, nothing is asked
        self.assertEqual(gcs_store_rules(statefulset(env=[], mounts=[], claims=())), [])
        # a deeper path on the claim, a base probe of 300 s
        deeper = [ROCKSDB[0], {"name": "RAY_gcs_storage_path", "value": "/data/gcs/store"}]
        self.assertEqual(gcs_store_rules(statefulset(env=deeper, startup={"periodSeconds": 10,
                                                                          "failureThreshold": 30})), [])

    def test_a_path_on_no_volume_or_the_wrong_one(self):
        self.assertIn("is under no volumeMount", one(statefulset(mounts=[], claims=())))
        memory = [{"name": "gcs-store", "emptyDir": {"medium": "Memory"}}]
        self.assertIn("of medium Memory: tmpfs", one(statefulset(claims=(), volumes=memory)))
        disk = [{"name": "gcs-store", "emptyDir": {}}]
        self.assertIn("deleted with the pod", one(statefulset(claims=(), volumes=disk)))
        config = [{"name": "gcs-store", "configMap": {"name": "x"}}]
        self.assertIn("the configMap volume gcs-store, not a persistent volume claim",
                      one(statefulset(claims=(), volumes=config)))
        read_only = [dict(MOUNT[0], readOnly=True)]
        self.assertIn("read-only mount", one(statefulset(mounts=read_only)))

    def test_one_claim_by_name_for_several_pods(self):
        shared = [{"name": "gcs-store", "persistentVolumeClaim": {"claimName": "gcs"}}]
        self.assertIn("Multi-Attach", one(statefulset(claims=(), volumes=shared)))
        self.assertEqual(gcs_store_rules(statefulset(claims=(), volumes=shared, replicas=1)), [])

    def test_claim_modes_and_size(self):
        shared = copy.deepcopy(CLAIM)
        shared["spec"]["accessModes"] = ["ReadWriteMany"]
        self.assertIn('accessModes ["ReadWriteMany"]', one(statefulset(claims=(shared,))))
        small = copy.deepcopy(CLAIM)
        small["spec"]["resources"]["requests"]["storage"] = "256Mi"
        self.assertIn("requests 256Mi, not more than raylaunch's free-space floor 256Mi", one(statefulset(claims=(small,))))
        floor = ROCKSDB + [{"name": "RAYLAUNCH_GCS_STORAGE_MIN_FREE", "value": "2Gi"}]
        self.assertIn("floor 2Gi", one(statefulset(env=floor)))
        small["spec"]["resources"]["requests"]["storage"] = "512Mi"
        self.assertEqual(gcs_store_rules(statefulset(claims=(small,))), [])

    def test_settings_raylaunch_refuses(self):
        redis = ROCKSDB + [{"name": "RAY_REDIS_ADDRESS", "value": "redis://r:6379"}]
        self.assertIn("RAY_REDIS_ADDRESS (components/gcs-ft) are both set", one(statefulset(env=redis)))
        self.assertIn("without RAY_gcs_storage_path", one(statefulset(env=ROCKSDB[:1])))
        self.assertIn("RAY_gcs_storage is unset (memory): Ray ignores the path", one(statefulset(env=ROCKSDB[1:])))

    def test_startup_probe_covers_rays_budget(self):
        short = {"periodSeconds": 10, "failureThreshold": 6}
        self.assertIn("gives up after 60 s, and Ray gives the GCS 120 s", one(statefulset(startup=short)))
        longer = ROCKSDB + [{"name": "RAY_gcs_server_port_wait_time_s", "value": "400"}]
        self.assertIn("gives up after 300 s, and Ray gives the GCS 400 s",
                      one(statefulset(env=longer, startup={"periodSeconds": 10, "failureThreshold": 30})))


if __name__ == "__main__":
    unittest.main()
