"""A Kubernetes stand-in for tests: see tests/cluster/README.md."""
from .cluster import Cluster, NeedsRoot, check_host  # noqa: F401
from .manifest import render, load  # noqa: F401
