"""Strict JSON schemas by (apiVersion, kind): the Kubernetes definitions and the CRDs in
tests/data/schemas/, made strict at load time (`additionalProperties: false` on every
object schema that lists `properties`, as the API server's fieldValidation=Strict does).

A kind may have several CRD files, one per version of its operator the kit claims to support
(Kueue 0.15.0 and 0.19.2): a document is checked against each, and an error that only some of
them report names the file it came from.
"""
import json
import os

from manifest_yaml import load_trusted, yaml

OBJECT_META = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

# Fields newer than the vendored 1.32 definitions that the kit uses, as Kubernetes 1.35's own API
# server publishes them (`kubectl get --raw /openapi/v2` of scripts/kube's cluster): container
# restart rules (ContainerRestartRules, beta in 1.35), for components/restart-in-place. The real
# 1.35 server checks the same manifests in tests/kube/test_dry_run_server.py.
NEWER_DEFINITIONS = {
    "io.k8s.api.core.v1.ContainerRestartRule": {
        "type": "object", "required": ["action"],
        "properties": {"action": {"type": "string"},
                       "exitCodes": {"$ref": "#/definitions/io.k8s.api.core.v1.ContainerRestartRuleOnExitCodes"}}},
    "io.k8s.api.core.v1.ContainerRestartRuleOnExitCodes": {
        "type": "object", "required": ["operator"],
        "properties": {"operator": {"type": "string"},
                       "values": {"type": "array", "items": {"type": "integer", "format": "int32"}}}},
}
NEWER_CONTAINER_FIELDS = {
    "restartPolicyRules": {"type": "array", "items": {"$ref": "#/definitions/io.k8s.api.core.v1.ContainerRestartRule"}},
}

try:
    import jsonschema
except ImportError:  # validate_manifests.main() reports the missing package (exit 2)
    jsonschema = None


class SetupError(Exception):
    """A problem with the environment, not with the manifests (exit 2)."""


def make_strict(schema):
    """Adds additionalProperties: false to every object schema that lists properties."""
    if isinstance(schema, list):
        for sub in schema:
            make_strict(sub)
        return
    if not isinstance(schema, dict):
        return
    if ("properties" in schema and "additionalProperties" not in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")):
        schema["additionalProperties"] = False
    for key in ("properties", "patternProperties", "definitions"):
        for sub in (schema.get(key) or {}).values():
            make_strict(sub)
    for key in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
        if isinstance(schema.get(key), (dict, list)):
            make_strict(schema[key])


def format_error(err):
    # For oneOf/anyOf failures, name the closest branch's error instead of "not valid under any".
    if err.context:
        err = jsonschema.exceptions.best_match(err.context) or err
    path = ".".join(str(p) for p in err.absolute_path) or "(root)"
    return f"{path}: {err.message}"


class Schemas:
    """Strict schemas by (apiVersion, kind), each a list of (origin, schema)."""

    def __init__(self, defs_path, crd_paths):
        try:
            with open(defs_path, encoding="utf-8") as f:
                self.defs = json.load(f)["definitions"]
        except (OSError, ValueError, KeyError) as err:
            raise SetupError(f"cannot load Kubernetes definitions {defs_path}: {err}") from err
        self.defs.update(NEWER_DEFINITIONS)
        self.defs["io.k8s.api.core.v1.Container"]["properties"].update(NEWER_CONTAINER_FIELDS)
        for definition in self.defs.values():
            make_strict(definition)
        self.by_kind = {}
        for name, definition in self.defs.items():
            for gvk in definition.get("x-kubernetes-group-version-kind", []):
                api = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
                self.by_kind.setdefault((api, gvk["kind"]), [("kubernetes", {"$ref": "#/definitions/" + name})])
        for path in crd_paths:
            self._add_crds(path)
        self._validators = {}

    def _add_crds(self, path):
        try:
            docs = load_trusted(path)
        except (OSError, yaml.YAMLError) as err:
            raise SetupError(f"cannot read CRD {path}: {' '.join(str(err).split())}") from err
        crds = [d for d in docs if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition"]
        if not crds:
            raise SetupError(f"no CustomResourceDefinition in {path}")
        origin = os.path.basename(path).removesuffix(".yaml")
        for crd in crds:
            spec = crd["spec"]
            for version in spec["versions"]:
                if not version.get("served", True):
                    continue
                schema = version["schema"]["openAPIV3Schema"]
                make_strict(schema)
                schema.setdefault("properties", {})["metadata"] = {"$ref": OBJECT_META}
                key = (f"{spec['group']}/{version['name']}", spec["names"]["kind"])
                self.by_kind.setdefault(key, []).append((origin, schema))

    def origins(self, api, kind):
        """The files that hold a schema for this kind ("kubernetes" for built-in kinds)."""
        return [origin for origin, _ in self.by_kind.get((api, kind), [])]

    def errors(self, doc):
        api, kind = doc.get("apiVersion"), doc.get("kind")
        if not isinstance(api, str) or not isinstance(kind, str):
            return ["(root): apiVersion and kind are required"]
        key = (api, kind)
        if key not in self.by_kind:
            return [f"(root): no schema for {api} {kind} (unknown kinds fail; add its CRD with --crd)"]
        found = {}  # message -> origins that report it
        for origin, schema in self.by_kind[key]:
            validator = self._validators.get((key, origin))
            if validator is None:
                validator = self._validators[(key, origin)] = jsonschema.Draft4Validator(
                    dict(schema, definitions=self.defs))
            errors = sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
            for message in dict.fromkeys(format_error(e) for e in errors):
                found.setdefault(message, []).append(origin)
        every = len(self.by_kind[key])
        return [message if len(origins) == every else f"{message} (with {', '.join(origins)})"
                for message, origins in found.items()]
