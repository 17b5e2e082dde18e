"""The one exception of the check's own: a problem with its environment, not with the manifests."""


class SetupError(Exception):
    """A missing package, tool or schema file, or a bad option (exit 2)."""
