"""Unit tests of the manifest check (run: ctest -R manifests.unit, or
/usr/bin/python3 -m unittest discover -s scripts/manifest_check/tests -t scripts). The checks of
whole trees, the fixtures and the kit are tests/manifests/selftest."""
