"""Strict offline validation of Kubernetes manifests, plus raylaunch's own rules.

    /usr/bin/python3 scripts/manifest_check [--no-rules] [--kubernetes 1.NN] [--k8s-defs F]... [--crd F]...
                                            [--node-pools F]... PATH...

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

Schemas (schemas.py): the Kubernetes 1.32 and 1.35 definitions and the CRDs in
tests/data/schemas/ (MPIJob; Kueue 0.15.0 and 0.19.2, both applied; Karpenter's NodeOverlay,
NodePool and EC2NodeClass; the Prometheus Operator's PodMonitor and PrometheusRule; see the
README there), made strict at load time. A kind with no schema is a failure. CRD metadata is
checked against the real ObjectMeta. `--kubernetes 1.32` checks for a cluster of that version
(what it rejects or drops fails); without it, what only an older version rejects is a NOTE naming
the version the manifest needs (kubernetes_versions.py).

Rules (skip with --no-rules; list with --list-rules) are in rules/; each failure names its rule.
Most look at one object or one build; kueue-admission relates a build to the queue files next to
it and to its components, node-pool-taints a pod to the node pools it selects (those checked, and
the kit's manifests/karpenter). The legacy-fabric-env rule reads launcher/plan/env_rules.json, the
table raylaunch itself embeds (--env-rules to use another).

Exit status: 0 all valid, 1 something invalid, 2 setup problem (missing package, kubectl or
schema file or env rules, nothing to check). Run it with Debian's /usr/bin/python3 (python3-yaml,
python3-jsonschema); scripts/check-manifests installs those and runs yamllint first.
"""
import argparse
import glob
import os
import subprocess
import sys

from . import kustomize_tree as ktree
from . import rules as manifest_rules
from .checker import Checker, display, read_kustomization
from .errors import SetupError
from .kubernetes_versions import Target
from .rules import GENERIC_RULES, RAYLAUNCH_EXEMPT, RULES
from .schemas import Schemas, jsonschema
from .yaml_documents import load_documents, strict_loader, yaml

EXIT_VALID, EXIT_INVALID, EXIT_SETUP = 0, 1, 2
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_DIR = os.path.join(REPO, "tests", "data", "schemas")
# The oldest Kubernetes the kit is validated against and the newest it uses (restart rules).
DEFAULT_DEFS = [os.path.join(SCHEMA_DIR, f"k8s-v{v}-definitions.json") for v in ("1.32.0", "1.35.0")]
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
    "karpenter.k8s.aws_ec2nodeclasses.v1.14.1.yaml",
    "monitoring.coreos.com_podmonitors.v0.93.0.yaml", "monitoring.coreos.com_prometheusrules.v0.93.0.yaml",
    # The workload APIs raylaunch reads its identity from (overlays/lws, overlays/jobset).
    "leaderworkerset.x-k8s.io_leaderworkersets.v0.10.0.yaml", "jobset.x-k8s.io_jobsets.v0.12.0.yaml")]
# The kit's node pools: pods that select them must tolerate their taints (rule node-pool-taints).
DEFAULT_NODE_POOLS = sorted(glob.glob(os.path.join(REPO, "manifests", "karpenter", "*.yaml")))
IMPORT_ERROR = None if yaml is not None and jsonschema is not None else "No module named 'yaml' or 'jsonschema'"


def start_build(directory):
    try:
        return subprocess.Popen(["kubectl", "kustomize", directory], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    except OSError as err:
        raise SetupError(f"cannot run kubectl ({err}); install kubectl >= 1.27 (kustomize v5)") from err


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


def node_pools(paths, loader):
    """(source, NodePool) of the given files, for the rule node-pool-taints."""
    pools = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                docs, error = load_documents(f.read(), loader)
        except OSError as err:
            raise SetupError(f"cannot read node pools {path}: {err}") from err
        if error:
            raise SetupError(f"node pools {path}: {error}")
        pools += [(display(path), d) for d in docs if isinstance(d, dict) and d.get("kind") == "NodePool"]
    return pools


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="manifest_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", metavar="PATH", help="YAML file, kustomize directory, directory tree or -")
    parser.add_argument("--kubernetes", metavar="1.NN", help="the Kubernetes version of the cluster to check for "
                        "(one of the vendored: 1.32, 1.35); default: the newest, with a note where an older one differs")
    parser.add_argument("--k8s-defs", action="append", help="Kubernetes JSON-schema definitions, the version in the "
                        "file name (repeatable; default: %s)" % ", ".join(map(display, DEFAULT_DEFS)))
    parser.add_argument("--crd", action="append", help="CRD YAML to validate custom resources with "
                        "(repeatable; default: the MPIJob, Kueue 0.15.0 and 0.19.2, Karpenter and Prometheus "
                        "Operator CRDs in tests/data/schemas)")
    parser.add_argument("--node-pools", action="append", help="YAML with Karpenter NodePools whose taints the pods "
                        "that select them must tolerate (repeatable; default: manifests/karpenter/*.yaml)")
    parser.add_argument("--env-rules", default=manifest_rules.env_rules_table.DEFAULT_PATH,
                        help="the env rules table (default: %(default)s)")
    parser.add_argument("--no-rules", dest="rules", action="store_false", help="schema checks only")
    parser.add_argument("--list-rules", action="store_true", help="print raylaunch's rules and exit")
    args = parser.parse_args(argv)
    if not args.paths and not args.list_rules:
        parser.error("at least one PATH is required")
    return args


def setup(args):
    """The units to check, the running builds and the Checker; SetupError or ValueError (the env
    rules table) when something is missing."""
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

    target = Target(args.kubernetes)
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
    pools = node_pools(args.node_pools or DEFAULT_NODE_POOLS, loader) if args.rules else []
    checker = Checker(Schemas(args.k8s_defs or DEFAULT_DEFS, args.crd or DEFAULT_CRDS, target), loader,
                      args.rules, pools)
    return units, builds, load, checker


def main(argv):
    args = parse_args(argv)
    if args.list_rules:
        for name, text in RULES.items():
            print(f"{name}: {text}")
        for kind, reason in RAYLAUNCH_EXEMPT.items():
            print(f"exempt: {kind}: only {', '.join(GENERIC_RULES)} apply ({reason})")
        return EXIT_VALID
    try:
        units, builds, load, checker = setup(args)
    except (SetupError, ValueError) as err:  # ValueError: the env rules table
        print(f"manifest_check: error: {err}", file=sys.stderr)
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
    print(f"{checker.documents} documents checked, {len(checker.failures)} failures, {len(checker.notes)} notes"
          + (f" (for Kubernetes {args.kubernetes})" if args.kubernetes else ""))
    return EXIT_INVALID if checker.failures else EXIT_VALID


def check_components_built(checker, units, load):
    """Fails each component that no checked kustomization builds: it would go unvalidated."""
    components, built = ktree.components_built(units, load)
    for path in components:
        if os.path.realpath(path) not in built:
            checker.fail(f"component({display(path)})", "no kustomization checked with it builds this component, "
                         "so it is never validated; use it in an overlay (manifests/overlays/p5-production uses "
                         "every optional component)")
