"""The real cluster's test library (tests/kube/README.md)."""
