#!/usr/bin/python3
"""Strict offline validation of Kubernetes manifests, plus raylaunch's own rules.

    /usr/bin/python3 scripts/validate_manifests.py [--no-rules] [--k8s-defs F] [--crd F]... PATH...

PATH is a YAML file (several documents allowed), `-` for stdin, a kustomize directory, or a
directory searched for kustomize directories and loose YAML files. A kustomize directory is
checked twice: its `kubectl kustomize` output, and every plain file its `resources:` list
names (following bases and components), since a raw file must be complete on its own
(`labels` with `includeSelectors` can hide a missing selector in the build output).

YAML files that sit in a kustomize directory without being named by it (cluster-wide objects an
admin applies once) are checked on their own; those next to the components a build uses are
checked with it even when only the overlay is given. A component given on its own is built
through the kustomizations of its tree that use it; one that nothing builds is a failure. Paths
are normalised first (`dir//manifests`, `./manifests/`).

Schemas (manifest_schemas.py): the Kubernetes 1.32 definitions and the CRDs in
tests/data/schemas/ (MPIJob; Kueue 0.15.0 and 0.19.2, both applied; Karpenter's
NodeOverlay, NodePool and EC2NodeClass; see the README there), made strict at load time. A kind
with no schema is a failure. CRD metadata is checked against the real ObjectMeta.

Rules (skip with --no-rules; list with --list-rules) are in manifest_rules.py; each failure names
its rule. Most look at one object or one build; kueue-admission relates a build to the queue files
next to it and to its components. The legacy-fabric-env rule reads launcher/plan/env_rules.json,
the table raylaunch itself embeds (--env-rules to use another).

Exit status: 0 all valid, 1 something invalid, 2 setup problem (missing package, kubectl or
schema file or env rules, nothing to check). Run it with Debian's /usr/bin/python3 (python3-yaml,
python3-jsonschema); scripts/check-manifests installs those and runs yamllint first.
"""
import argparse
import os
import subprocess
import sys

import kustomize_tree as ktree
import manifest_rules
from manifest_rules import GENERIC_RULES, RAYLAUNCH_EXEMPT, RULES, dig, object_rules, unit_rules
from manifest_schemas import Schemas, SetupError, jsonschema
from manifest_yaml import load_documents, strict_loader, yaml

EXIT_VALID, EXIT_INVALID, EXIT_SETUP = 0, 1, 2
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_DIR = os.path.join(REPO, "tests", "data", "schemas")
DEFAULT_DEFS = os.path.join(SCHEMA_DIR, "k8s-v1.32.0-definitions.json")
# Kueue twice: the oldest release the kit claims (0.15.0, the first with v1beta2) and the newest
# vendored; every queue object must pass both. Karpenter's NodePool and EC2NodeClass are the AWS
# provider's (what EKS installs), the NodeOverlay the core project's.
DEFAULT_CRDS = [os.path.join(SCHEMA_DIR, name) for name in (
    "kubeflow.org_mpijobs.v0.8.0.yaml",
    "kueue.x-k8s.io_topologies.v0.15.0.yaml", "kueue.x-k8s.io_resourceflavors.v0.15.0.yaml",
    "kueue.x-k8s.io_clusterqueues.v0.15.0.yaml", "kueue.x-k8s.io_localqueues.v0.15.0.yaml",
    "kueue.x-k8s.io_topologies.v0.19.2.yaml", "kueue.x-k8s.io_resourceflavors.v0.19.2.yaml",
    "kueue.x-k8s.io_clusterqueues.v0.19.2.yaml", "kueue.x-k8s.io_localqueues.v0.19.2.yaml",
    "karpenter.sh_nodeoverlays.v1.14.1.yaml", "karpenter.sh_nodepools.v1.14.1.yaml",
    "karpenter.k8s.aws_ec2nodeclasses.v1.14.1.yaml")]
IMPORT_ERROR = None if yaml is not None and jsonschema is not None else "No module named 'yaml' or 'jsonschema'"


# --- inputs -------------------------------------------------------------------------------

def display(path):
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


class Checker:
    def __init__(self, schemas, loader, rules):
        self.schemas, self.loader, self.rules = schemas, loader, rules
        self.documents = 0
        self.failures = []
        self.raw_seen = set()
        self.units = []  # (source, documents) of each build or file checked whole, for cross-unit rules
        self.related = {}  # a build's source -> the sources of the loose files it depends on

    def fail(self, source, message, index=None, doc=None):
        where = source if index is None else f"{source}[doc {index}]"
        if isinstance(doc, dict):
            where += f" {doc.get('kind', '?')}/{dig(doc, 'metadata', 'name', default='?')}"
        line = f"FAIL {where}: {message}"
        self.failures.append(line)
        print(line)

    def check_documents(self, source, text, whole_unit):
        docs, error = load_documents(text, self.loader)
        if error:
            self.fail(source, error)
            return
        for index, doc in enumerate(docs):
            self.documents += 1
            if not isinstance(doc, dict):
                self.fail(source, "(root): a document must be a mapping", index)
                continue
            for message in self.schemas.errors(doc):
                self.fail(source, message, index, doc)
            if self.rules:
                try:
                    problems = object_rules(doc)
                except (TypeError, AttributeError, ValueError) as err:
                    # Rules assume the schema's types; a wrong type was reported above.
                    problems = [f"rules not checked: unexpected structure ({err})"]
                for message in problems:
                    self.fail(source, message, index, doc)
        if self.rules and whole_unit:
            for index, message in unit_rules(docs):
                self.fail(source, message, index, docs[index])
        if whole_unit:
            self.units.append((source, docs))

    def check_cross_unit(self):
        """Rules that relate units: a workload in one build and the Kueue queues in another file."""
        if not self.rules:
            return
        docs_of = dict(self.units)

        def related(source):
            if source in self.related:
                return self.related[source]
            # A plain file relates to the files beside it.
            return {other for other, _ in self.units if os.path.dirname(other) == os.path.dirname(source)}

        for source, index, message in manifest_rules.cross_unit_rules(self.units, related):
            self.fail(source, message, index, docs_of[source][index])

    def check_file(self, path, whole_unit):
        real = os.path.realpath(path)
        if real in self.raw_seen:
            return
        self.raw_seen.add(real)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as err:
            self.fail(display(path), f"cannot read: {err}")
            return
        self.check_documents(display(path), text, whole_unit)

    def raw_resources(self, directory, source, visiting=()):
        """Plain files named under resources/bases/components, following directories."""
        real = os.path.realpath(directory)
        kustomization = read_kustomization(directory, self.loader)
        if kustomization is None or real in visiting:
            return []
        files = []
        for entry in ktree.named_entries(kustomization):
            if ktree.is_remote(entry):
                self.fail(source, f"remote resource {entry}: vendor it, the check runs offline")
                continue
            path = os.path.normpath(os.path.join(directory, entry))
            if os.path.isdir(path):
                files += self.raw_resources(path, source, visiting + (real,))
            elif os.path.isfile(path):
                files.append(path)
        return files


def start_build(directory):
    try:
        return subprocess.Popen(["kubectl", "kustomize", directory], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    except OSError as err:
        raise SetupError(f"cannot run kubectl ({err}); install kubectl >= 1.27 (kustomize v5)") from err


def read_kustomization(directory, loader):
    """The directory's kustomization as a dict; None when there is none or it does not parse
    (the kustomize build reports that)."""
    path = ktree.kustomization_path(directory)
    if path is None:
        return None
    with open(path, encoding="utf-8") as f:
        docs, error = load_documents(f.read(), loader)
    return None if error or not docs or not isinstance(docs[0], dict) else docs[0]


def plan(paths, loader):
    """Expands the arguments into ('stdin'|'file'|'kustomize', path) units."""
    units = []
    for path in paths:
        if path == "-":
            units.append(("stdin", path))
            continue
        # One spelling per path ("dir//manifests/", "./manifests" are manifests): the kustomization
        # entries are compared with what the walk finds, and a path spelled two ways would make
        # every file a kustomization reads look loose, and be checked as a whole object.
        path = os.path.normpath(path)
        if os.path.isfile(path):
            units.append(("file", path))
        elif os.path.isdir(path):
            found = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                if ktree.kustomization_path(root):
                    found.append(("kustomize", root))
                    kustomization = read_kustomization(root, loader)  # None: the build reports it
                    found += [("file", f) for f in ktree.loose_files(root, kustomization)] if kustomization else []
                else:
                    found += [("file", os.path.join(root, f)) for f in sorted(files)
                              if f.endswith((".yaml", ".yml")) and not f.startswith(".")]
            if not found:
                raise SetupError(f"no kustomization or YAML file under {path}")
            units += found
        else:
            raise SetupError(f"no such file or directory: {path}")
    return units


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", metavar="PATH", help="YAML file, kustomize directory, directory tree or -")
    parser.add_argument("--k8s-defs", default=DEFAULT_DEFS, help="Kubernetes JSON-schema definitions (default: %(default)s)")
    parser.add_argument("--crd", action="append", help="CRD YAML to validate custom resources with "
                        "(repeatable; default: the MPIJob, Kueue 0.15.0 and 0.19.2, and Karpenter CRDs in "
                        "tests/data/schemas)")
    parser.add_argument("--env-rules", default=manifest_rules.env_rules_table.DEFAULT_PATH,
                        help="the env rules table (default: %(default)s)")
    parser.add_argument("--no-rules", dest="rules", action="store_false", help="schema checks only")
    parser.add_argument("--list-rules", action="store_true", help="print raylaunch's rules and exit")
    args = parser.parse_args(argv)
    if args.list_rules:
        for name, text in RULES.items():
            print(f"{name}: {text}")
        for kind, reason in RAYLAUNCH_EXEMPT.items():
            print(f"exempt: {kind}: only {', '.join(GENERIC_RULES)} apply ({reason})")
        return EXIT_VALID
    if not args.paths:
        parser.error("at least one PATH is required")
    try:
        if IMPORT_ERROR is not None:
            raise SetupError(f"{IMPORT_ERROR} (apt-get install python3-yaml python3-jsonschema, and run "
                             "this with /usr/bin/python3; scripts/check-manifests does both)")
        loader = strict_loader()

        parsed = {}

        def load(directory):
            """read_kustomization, once per directory: the tree walks ask for the same ones often."""
            real = os.path.realpath(directory)
            if real not in parsed:
                parsed[real] = read_kustomization(directory, loader)
            return parsed[real]

        units = plan(args.paths, loader)
        extra = ktree.lone_component_builders(units, load)
        for _, path in extra:
            print(f"NOTE kustomize({display(path)}): built to check the component(s) given on their own")
        units += extra
        companions = ktree.companion_files(units, load)
        for _, path in companions:
            print(f"NOTE {display(path)}: checked with the builds that use its component (cluster-wide objects)")
        units += companions
        # Builds run in the background while the schemas load.
        builds = {path: start_build(path) for kind, path in units
                  if kind == "kustomize" and not ktree.is_component(path)}
        if args.rules:
            manifest_rules.load_env_rules(args.env_rules)
        checker = Checker(Schemas(args.k8s_defs, args.crd or DEFAULT_CRDS), loader, args.rules)
    except (SetupError, ValueError) as err:  # ValueError: the env rules table
        print(f"validate_manifests: error: {err}", file=sys.stderr)
        return EXIT_SETUP
    for kind, path in units:
        if kind == "stdin":
            checker.check_documents("<stdin>", sys.stdin.read(), True)
        elif kind == "file":
            checker.check_file(path, True)
        elif path in builds:
            source = f"kustomize({display(path)})"
            checker.related[source] = {display(f) for f in ktree.related_files(path, load)}
            out, err = builds[path].communicate()
            if builds[path].returncode != 0:
                checker.fail(source, "kustomize build failed: " + " ".join(err.split()))
            else:
                for line in err.splitlines():
                    print(f"WARN {source}: {line}", file=sys.stderr)
                checker.check_documents(source, out, True)
            for raw in checker.raw_resources(path, source):
                checker.check_file(raw, False)
    check_components_built(checker, units, load)
    checker.check_cross_unit()
    print(f"{checker.documents} documents checked, {len(checker.failures)} failures")
    return EXIT_INVALID if checker.failures else EXIT_VALID


def check_components_built(checker, units, load):
    """Fails each component that no checked kustomization builds: it would go unvalidated."""
    components, built = ktree.components_built(units, load)
    for path in components:
        if os.path.realpath(path) not in built:
            checker.fail(f"component({display(path)})", "no kustomization checked with it builds this component, "
                         "so it is never validated; use it in an overlay (manifests/overlays/p5-production uses "
                         "every optional component)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
