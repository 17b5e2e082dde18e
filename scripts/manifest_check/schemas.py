"""Strict JSON schemas by (apiVersion, kind): the Kubernetes definitions of every vendored
Kubernetes version and the CRDs in tests/data/schemas/, made strict at load time
(`additionalProperties: false` on every object schema that lists `properties`, as the API
server's fieldValidation=Strict does).

A kind may have several CRD files, one per version of its operator the kit claims to support
(Kueue 0.15.0 and 0.19.2): a document is checked against each, and an error that only some of
them report names the file it came from. A built-in kind is checked against each Kubernetes
version (1.32 and 1.35); what only some versions reject is judged by kubernetes_versions.Target
(a failure, or a note that the manifest needs a newer Kubernetes).
"""
import json
import os

from .errors import SetupError
from .kubernetes_versions import version_of_file
from .yaml_documents import load_trusted, yaml

OBJECT_META = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

try:
    import jsonschema
except ImportError:  # cli.main() reports the missing package (exit 2)
    jsonschema = None


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
    """Strict schemas by (apiVersion, kind), each a list of (origin, schema, definitions). The
    origin of a built-in kind's schema is its Kubernetes version ("1.32"), of a CRD its file."""

    def __init__(self, defs_paths, crd_paths, target):
        self.target = target
        self.by_kind = {}
        self.kubernetes = {}  # version -> its definitions
        for path in defs_paths:
            try:
                with open(path, encoding="utf-8") as f:
                    defs = json.load(f)["definitions"]
            except (OSError, ValueError, KeyError) as err:
                raise SetupError(f"cannot load Kubernetes definitions {path}: {err}") from err
            version = version_of_file(path)
            for definition in defs.values():
                make_strict(definition)
            self.kubernetes[version] = defs
            for name, definition in defs.items():
                for gvk in definition.get("x-kubernetes-group-version-kind", []):
                    api = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
                    entries = self.by_kind.setdefault((api, gvk["kind"]), [])
                    if version not in {origin for origin, _, _ in entries}:
                        entries.append((version, {"$ref": "#/definitions/" + name}, defs))
        target.known(sorted(self.kubernetes, key=target.key))
        # CRDs embed ObjectMeta by reference: the newest Kubernetes's (it is the same in every version).
        self.crd_defs = self.kubernetes[target.newest]
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
                self.by_kind.setdefault(key, []).append((origin, schema, self.crd_defs))

    def origins(self, api, kind):
        """The versions or files that hold a schema for this kind."""
        return [origin for origin, _, _ in self.by_kind.get((api, kind), [])]

    def errors(self, doc):
        """(failures, notes): messages for this document; notes name the Kubernetes version a
        document needs where only older versions reject it."""
        api, kind = doc.get("apiVersion"), doc.get("kind")
        if not isinstance(api, str) or not isinstance(kind, str):
            return ["(root): apiVersion and kind are required"], []
        key = (api, kind)
        if key not in self.by_kind:
            return [f"(root): no schema for {api} {kind} (unknown kinds fail; add its CRD with --crd)"], []
        found = {}  # message -> origins that report it
        entries = self.by_kind[key]
        for origin, schema, defs in entries:
            validator = self._validators.get((key, origin))
            if validator is None:
                validator = self._validators[(key, origin)] = jsonschema.Draft4Validator(
                    dict(schema, definitions=defs))
            errors = sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
            for message in dict.fromkeys(format_error(e) for e in errors):
                found.setdefault(message, []).append(origin)
        if entries[0][0] in self.kubernetes:  # a built-in kind
            lacking = [v for v in self.kubernetes if v not in {origin for origin, _, _ in entries}]
            if lacking:
                found[f"(root): {api} {kind} does not exist in that version"] = lacking
            return self.target.judge(found)
        every = len(entries)
        return [message if len(origins) == every else f"{message} (with {', '.join(origins)})"
                for message, origins in found.items()], []
