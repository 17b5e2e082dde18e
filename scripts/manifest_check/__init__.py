"""The manifest check: strict offline validation of Kubernetes manifests against the vendored
schemas (tests/data/schemas), plus raylaunch's own rules (rules/), for the kit in manifests/.

Run it as `scripts/check-manifests` (yamllint first, Debian's packages installed), or as
`/usr/bin/python3 scripts/manifest_check PATH...` (cli.py says what it takes). Its unit tests are
in tests/ beside it; the self-test of its fixtures is tests/manifests/selftest.
"""
