"""Which Kubernetes versions a check is for, and what a difference between them means.

The check loads the definitions of every vendored Kubernetes version (1.32, the oldest the kit is
validated against, and 1.35). A document one version rejects and another accepts is judged by
the Target:

- `--kubernetes 1.32` (the cluster you deploy to): what 1.32 rejects fails, and the message names
  the versions that accept it (`... (Kubernetes 1.32; valid on 1.35)`);
- by default (no cluster named): what the newest version rejects fails; what only older versions
  reject is a note that the manifest needs a newer Kubernetes (`needs Kubernetes 1.35: on 1.32,
  ...`), since the kit ships overlays for 1.35 (components/restart-in-place) beside ones for 1.31+.

The same goes for fields every schema accepts but an older API server drops (a feature gate off by
default there): rules/kubernetes_version.py reports them through `judge_feature`.
"""
import os
import re

from .errors import SetupError


def key(version):
    """"1.32" -> (1, 32), for ordering."""
    return tuple(int(part) for part in version.split("."))


def version_of_file(path):
    """The Kubernetes version a definitions file is for, from its name (k8s-v1.35.0-definitions.json)."""
    match = re.search(r"v(\d+)\.(\d+)(?:\.\d+)?", os.path.basename(path))
    if not match:
        raise SetupError(f"cannot tell the Kubernetes version of {path}: name it like k8s-v1.35.0-definitions.json")
    return f"{match.group(1)}.{match.group(2)}"


class Target:
    """The Kubernetes version a check is for: one (`version`), or None for the newest vendored one
    with notes where an older one differs."""

    key = staticmethod(key)

    def __init__(self, version=None):
        if version is not None and not re.fullmatch(r"\d+\.\d+", version):
            raise SetupError(f"--kubernetes {version}: give a minor version, e.g. 1.32")
        self.version = version
        self.versions = []

    def known(self, versions):
        """The vendored versions, oldest first; the target must be one of them."""
        self.versions = list(versions)
        if not self.versions:
            raise SetupError("no Kubernetes definitions given")
        if self.version is not None and self.version not in self.versions:
            raise SetupError(f"--kubernetes {self.version}: no definitions for it; vendored: {', '.join(self.versions)} "
                             "(tests/data/schemas/README.md says how to add one)")

    @property
    def newest(self):
        return self.versions[-1]

    def judge(self, found):
        """found: message -> the versions that report it. Returns (failures, notes)."""
        failures, notes = [], []
        for message, rejecting in found.items():
            rejecting = set(rejecting)
            accepting = [v for v in self.versions if v not in rejecting]
            if self.version is not None:
                if self.version in rejecting:
                    failures.append(message if not accepting else
                                    f"{message} (Kubernetes {self.version}; valid on {', '.join(accepting)})")
            elif self.newest in rejecting:
                failures.append(message if not accepting else
                                f"{message} (with Kubernetes {', '.join(v for v in self.versions if v in rejecting)})")
            else:
                needs = next(v for v in self.versions if v not in rejecting and all(key(v) > key(r) for r in rejecting))
                older = ", ".join(v for v in self.versions if v in rejecting)
                notes.append(f"needs Kubernetes {needs}: on {older}, {message}")
        return failures, notes

    def judge_feature(self, message, since):
        """A field that works from Kubernetes `since` on and is dropped before. (failures, notes)."""
        if self.version is not None:
            return ([message], []) if key(self.version) < key(since) else ([], [])
        return ([], [f"needs Kubernetes {since}: {message}"]) if key(self.versions[0]) < key(since) else ([], [])
