"""What a kustomize directory names: its resources, bases and components, the other files it
reads (patches, generators), and the YAML files next to it that it does not read.

The checker uses this to check raw files as well as build output, to check the loose
YAML files that live beside a kustomization (cluster-wide objects an admin applies once, such as
the Karpenter NodeOverlay next to the huge-pages component), and to find components that no
checked kustomization builds (a component is only ever validated through a build: one checked
on its own is built through the overlays of its tree that use it).
"""
import os
import re

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
NAMED = ("resources", "bases", "components")


def kustomization_path(directory):
    for name in KUSTOMIZATION_FILES:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return path
    return None


def is_remote(entry):
    return bool(re.match(r"^(https?://|git@|ssh://|git::|github\.com/)", entry)) or "?ref=" in entry


def is_component(directory):
    with open(kustomization_path(directory), encoding="utf-8") as f:
        return re.search(r"^kind:\s*Component\s*$", f.read(), re.MULTILINE) is not None


def named_entries(kustomization):
    """Entries under resources, bases and components (strings only)."""
    return [e for key in NAMED for e in kustomization.get(key) or [] if isinstance(e, str)]


def read_files(kustomization):
    """Local files the kustomization reads besides its resources: patches and generator inputs."""
    files = []
    for patch in kustomization.get("patches") or kustomization.get("patchesJson6902") or []:
        if isinstance(patch, dict) and isinstance(patch.get("path"), str):
            files.append(patch["path"])
    files += [p for p in kustomization.get("patchesStrategicMerge") or [] if isinstance(p, str) and "\n" not in p]
    for key in ("replacements", "configurations", "crds", "generators", "transformers", "validators"):
        for entry in kustomization.get(key) or []:
            path = entry.get("path") if isinstance(entry, dict) else entry
            if isinstance(path, str) and "\n" not in path:
                files.append(path)
    for key in ("configMapGenerator", "secretGenerator"):
        for generator in kustomization.get(key) or []:
            for source in (generator.get("files") or []) + (generator.get("envs") or []) + (
                    [generator["env"]] if generator.get("env") else []):
                files.append(str(source).split("=", 1)[-1])
    return files


def loose_files(directory, kustomization):
    """YAML files in the directory that the kustomization neither builds nor reads."""
    directory = os.path.normpath(directory)  # both sides spelled alike ("a//b" is "a/b")
    used = {os.path.normpath(os.path.join(directory, e)) for e in named_entries(kustomization) + read_files(kustomization)}
    used.add(os.path.normpath(kustomization_path(directory)))
    return [os.path.join(directory, name) for name in sorted(os.listdir(directory))
            if name.endswith((".yaml", ".yml")) and not name.startswith(".")
            and os.path.join(directory, name) not in used and os.path.isfile(os.path.join(directory, name))]


def components_reached(directory, load, seen=None):
    """Real paths of every component a kustomization builds, directly or through its bases."""
    seen = set() if seen is None else seen
    real = os.path.realpath(directory)
    if real in seen or kustomization_path(directory) is None:
        return set()
    seen.add(real)
    kustomization = load(directory) or {}
    found = set()
    for key in NAMED:
        for entry in kustomization.get(key) or []:
            if not isinstance(entry, str) or is_remote(entry):
                continue
            path = os.path.normpath(os.path.join(directory, entry))
            if os.path.isdir(path) and kustomization_path(path):
                if key == "components":
                    found.add(os.path.realpath(path))
                found |= components_reached(path, load, seen)
    return found


def builders(component, load):
    """Kustomizations in the component's own tree (two levels up: manifests/ for
    manifests/components/x) that build it, for checking a component given on its own."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(component)))
    target = os.path.realpath(component)
    found = []
    for directory, subdirectories, _ in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        if kustomization_path(directory) and not is_component(directory) \
                and target in components_reached(directory, load):
            found.append(directory)
    return found


def components_built(units, load):
    """(the components among the ('kustomize', dir) units, real paths of those a unit builds)."""
    directories = [path for kind, path in units if kind == "kustomize"]
    components = [path for path in directories if is_component(path)]
    built = set()
    for path in directories:
        if path not in components:
            built |= components_reached(path, load)
    return components, built


def lone_component_builders(units, load):
    """Extra units that build the components no unit builds (a component checked on its own)."""
    components, built = components_built(units, load)
    extra = []
    for path in components:
        if os.path.realpath(path) not in built:
            extra += [("kustomize", d) for d in builders(path, load) if ("kustomize", d) not in units + extra]
    return extra


def related_files(directory, load):
    """The loose files a build depends on: next to its kustomization, and next to every component
    it uses (the Kueue queues next to components/kueue, the NodeOverlay next to
    components/hugepages): cluster-wide objects, which rules across files (kueue-admission)
    relate to the build."""
    found = []
    for where in [os.path.realpath(directory)] + sorted(components_reached(directory, load)):
        kustomization = load(where)
        if kustomization:
            found += loose_files(os.path.relpath(where), kustomization)
    return found


def companion_files(units, load):
    """('file', path) units for the loose files next to the components the builds use, checked
    with the builds so that rules across files see them when an overlay is checked on its own."""
    have = {os.path.realpath(path) for kind, path in units if kind == "file"}
    extra = []
    for kind, path in units:
        if kind != "kustomize" or is_component(path):
            continue
        for loose in related_files(path, load):
            if os.path.realpath(loose) not in have:
                have.add(os.path.realpath(loose))
                extra.append(("file", loose))
    return extra
