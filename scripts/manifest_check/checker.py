"""The checker: every document of a build or file through the schemas and the rules, the
failures and notes printed as they are found (`FAIL <where>: <message>`, `NOTE ...`)."""
import os

from . import kustomize_tree as ktree
from . import rules as manifest_rules
from .objects import dig
from .rules import object_rules, unit_rules, version_rules
from .yaml_documents import load_documents


def display(path):
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def read_kustomization(directory, loader):
    """The directory's kustomization as a dict; None when there is none or it does not parse
    (the kustomize build reports that)."""
    path = ktree.kustomization_path(directory)
    if path is None:
        return None
    with open(path, encoding="utf-8") as f:
        docs, error = load_documents(f.read(), loader)
    return None if error or not docs or not isinstance(docs[0], dict) else docs[0]


class Checker:
    def __init__(self, schemas, loader, rules, node_pools=()):
        self.schemas, self.loader, self.rules = schemas, loader, rules
        self.node_pools = list(node_pools)  # (source, NodePool) of the kit, for node-pool-taints
        self.documents = 0
        self.failures = []
        self.notes = []
        self.raw_seen = set()
        self.units = []  # (source, documents) of each build or file checked whole, for cross-unit rules
        self.related = {}  # a build's source -> the sources of the loose files it depends on

    @staticmethod
    def where(source, index, doc):
        where = source if index is None else f"{source}[doc {index}]"
        if isinstance(doc, dict):
            where += f" {doc.get('kind', '?')}/{dig(doc, 'metadata', 'name', default='?')}"
        return where

    def fail(self, source, message, index=None, doc=None):
        line = f"FAIL {self.where(source, index, doc)}: {message}"
        self.failures.append(line)
        print(line)

    def note(self, source, message, index=None, doc=None):
        line = f"NOTE {self.where(source, index, doc)}: {message}"
        self.notes.append(line)
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
            failures, notes = self.schemas.errors(doc)
            if self.rules:
                try:
                    problems = object_rules(doc)
                    version_failures, version_notes = version_rules(doc, self.schemas.target)
                except (TypeError, AttributeError, ValueError) as err:
                    # Rules assume the schema's types; a wrong type was reported above.
                    problems, version_failures, version_notes = [f"rules not checked: unexpected structure ({err})"], [], []
                failures += problems + version_failures
                notes += version_notes
            for message in failures:
                self.fail(source, message, index, doc)
            for message in notes:
                self.note(source, message, index, doc)
        if self.rules and whole_unit:
            for index, message in unit_rules(docs):
                self.fail(source, message, index, docs[index])
        if whole_unit:
            self.units.append((source, docs))

    def check_cross_unit(self):
        """Rules that relate units: a workload in one build and the Kueue queues in another file,
        the node pools its pods select."""
        if not self.rules:
            return
        docs_of = dict(self.units)

        def related(source):
            if source in self.related:
                return self.related[source]
            # A plain file relates to the files beside it.
            return {other for other, _ in self.units if os.path.dirname(other) == os.path.dirname(source)}

        for source, index, message in manifest_rules.cross_unit_rules(self.units, related, self.node_pools):
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
