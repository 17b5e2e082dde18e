"""The real cluster's tests share the ctest contract of tests/cluster (exit 0 pass, 1 fail,
125 skip with one line) and print the workload's state when a test fails.

    from kubetest.testing import main
    def test_something(): ...
    main(test_something)
"""
import os
import signal
import sys
import time
import traceback

from .cluster import ClusterMissing, Skip, require_cluster

_current = []  # runs alive in this test, for their teardown and a failure's report


def tracked(run):
    _current.append(run)
    return run


def eq(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}: got {actual!r}, expected {expected!r}")


def _on_term(signum, _frame):
    raise SystemExit(128 + signum)  # unwinds the `with` blocks: teardown runs


def main(*tests):
    signal.signal(signal.SIGTERM, _on_term)
    try:
        require_cluster()
    except Skip as e:
        print(f"SKIP: {os.path.basename(sys.argv[0])}: {e}")
        sys.exit(125)
    except ClusterMissing as e:
        print(f"FAIL: {os.path.basename(sys.argv[0])}: {e}")
        sys.exit(1)
    only = sys.argv[1:]
    failed = skipped = ran = 0
    for test in tests:
        if only and test.__name__ not in only:
            continue
        _current.clear()
        start = time.monotonic()
        ran += 1
        try:
            test()
            print(f"ok   {test.__name__} ({time.monotonic() - start:.1f} s)", flush=True)
        except Skip as e:
            skipped += 1
            print(f"SKIP: {test.__name__}: {e}")
        except Exception:  # noqa: BLE001 - report every failing test, then fail
            failed += 1
            print(f"FAIL {test.__name__} ({time.monotonic() - start:.1f} s)")
            text = traceback.format_exc()
            print(text)
            if "--- events" not in text:  # wait_for's message has it already
                for run in _current:
                    try:
                        print(run.describe())
                    except Exception as e:  # noqa: BLE001 - the report must not hide the failure
                        print(f"(describe failed: {e})")
        finally:
            for run in _current:
                run.teardown()
    sys.exit(1 if failed else 125 if ran and skipped == ran else 0)
