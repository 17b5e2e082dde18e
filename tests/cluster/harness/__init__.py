"""A Kubernetes stand-in for tests: see tests/cluster/README.md."""
from .cluster import Cluster, NeedsRoot, check_host
from .manifest import load, render

__all__ = ["Cluster", "NeedsRoot", "check_host", "load", "render"]
