"""Loading manifests as the API server reads them: strict YAML (duplicate keys are errors,
timestamps stay strings) and `key: null` dropped (the API server treats it as unset)."""
try:
    import yaml
except ImportError:  # cli.main() reports the missing package (exit 2)
    yaml = None


def strict_loader():
    """A SafeLoader that rejects duplicate keys and keeps timestamps as strings."""
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class StrictLoader(base):  # pylint: disable=too-many-ancestors
        pass

    StrictLoader.yaml_implicit_resolvers = {
        first: [r for r in resolvers if r[0] != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }

    def construct_map(loader, node):
        loader.flatten_mapping(node)
        seen = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:  # unhashable key: the schema check reports it
                continue
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    f"found duplicate key {key!r}", key_node.start_mark)
        return loader.construct_mapping(node, deep=True)

    StrictLoader.add_constructor("tag:yaml.org,2002:map", construct_map)
    return StrictLoader


def load_documents(text, loader):
    """Returns (documents, error); empty documents are dropped, `key: null` removed."""
    try:
        docs = [d for d in yaml.load_all(text, Loader=loader) if d is not None]
    except yaml.YAMLError as err:
        return [], "YAML: " + " ".join(str(err).split())
    return [drop_nulls(d) for d in docs], None


def drop_nulls(value):
    # The API server treats `key: null` as unset (e.g. `creationTimestamp: null`).
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value


def load_trusted(path):
    """All documents of a trusted schema file, with the plain C loader (five times faster)."""
    with open(path, encoding="utf-8") as f:
        return list(yaml.load_all(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
