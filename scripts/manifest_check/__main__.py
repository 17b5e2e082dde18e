"""`python3 scripts/manifest_check ...` and `python3 -m manifest_check ...`: the check's command line."""
import os
import sys

if not __package__:  # run as a directory: make the package importable by its name
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from manifest_check.cli import main  # noqa: E402  (after the path is set)

sys.exit(main(sys.argv[1:]))
