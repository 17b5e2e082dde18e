"""FAKE Ray CLI, for tests only: the package behind tests/fakes/ray/bin/ray."""
