"""Rule kubernetes-version: fields every vendored schema accepts that an older Kubernetes drops.

An alpha field behind a feature gate that is off by default passes validation, and the API
server removes it before it stores the object (each registry strategy drops the fields of a
disabled gate), so the pod runs without it and nothing says so. The schema check cannot see
that: the field is in the 1.32 definitions too. What differs between the vendored schemas
(container restart rules, in 1.35 only) the schema check reports itself (kubernetes_versions.py).

States checked on a real 1.35.4 API server (`kubectl get --raw /metrics`,
`kubernetes_feature_enabled`): PodLevelResources BETA, on; JobPodReplacementPolicy GA (it is
beta and on by default from 1.29, older than anything the kit supports, so no entry here).
"""
from ..objects import pod_templates

RULE = "kubernetes-version"
# (pod spec field, what it is, its feature gate, the first version where it is on by default,
#  what happens where it is dropped)
GATED_POD_FIELDS = [
    ("resources", "pod-level resources", "PodLevelResources", "1.34",
     "only the containers' own requests and limits apply (set them there to run on older clusters)"),
]


def kubernetes_version_rules(doc, target):
    """(failures, notes) for this object against the Target (kubernetes_versions.Target)."""
    failures, notes = [], []
    for where, template in pod_templates(doc):
        spec = template.get("spec") or {}
        for field, what, gate, since, without in GATED_POD_FIELDS:
            if field not in spec:
                continue
            message = (f"rule {RULE}: {where}.{field} ({what}) is alpha before Kubernetes {since} (feature gate "
                       f"{gate}, off by default): an older API server drops the field without a word, and {without}; "
                       f"it is on by default from {since}")
            found_failures, found_notes = target.judge_feature(message, since)
            failures += found_failures
            notes += found_notes
    return failures, notes
