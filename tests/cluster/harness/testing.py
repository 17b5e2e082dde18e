"""What the harness's tests share: the ctest contract (exit 0 pass, 1 fail, 125 skip with one
line), the self-test program as PID 1, and printing the cluster's state when a test fails.

A test file is a list of functions run in order:

    from harness.testing import main, testpod_cluster
    def test_something():
        with testpod_cluster("p4de", replicas=2) as c: ...
    main(test_something)
"""
import os
import signal
import sys
import time
import traceback

from .cluster import Cluster, NeedsRoot, check_host
from .manifest import ManifestError, kubectl, render

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER_TESTS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(CLUSTER_TESTS))
TESTPOD = os.path.join(CLUSTER_TESTS, "testpod.py")
_current = []  # clusters alive in this test, for printing on failure

HTTP_PROBES = {"startup": {"httpGet": {"path": "/livez", "port": 8081}},
               "liveness": {"httpGet": {"path": "/livez", "port": 8081}},
               "readiness": {"httpGet": {"path": "/readyz", "port": 8081}}}


class Skip(Exception):
    pass


def raylaunch_bin():
    """The binary under test (ctest passes RAYLAUNCH_BIN); Skip without it."""
    path = os.environ.get("RAYLAUNCH_BIN")
    if not path or not os.access(path, os.X_OK):
        raise Skip("RAYLAUNCH_BIN is not set to a built raylaunch")
    return path


def verbose_sink():
    return sys.stdout if os.environ.get("RLC_VERBOSE") else None


def tracked(cluster):
    _current.append(cluster)
    return cluster


def testpod_cluster(overlay="p4de", replicas=2, env=None, probes=None, docs=None, **kw):
    """The overlay's pods (or those of `docs`, a build the test changed) with testpod.py as
    the container command (instead of raylaunch) and httpGet probes on its port, with short
    periods unless the test says otherwise."""
    # Short periods, but thresholds that a loaded 2-core CI machine does not trip: a test
    # about a threshold sets its own.
    thresholds = {"startup": 100, "liveness": 20, "readiness": 3}
    fast = {kind: dict(p, periodSeconds=0.1, timeoutSeconds=2, failureThreshold=thresholds[kind])
            for kind, p in HTTP_PROBES.items()}
    for kind, patch in (probes or {}).items():
        if patch is None:
            fast[kind] = None
            continue
        base = dict(fast[kind])
        if any(h in patch for h in ("exec", "httpGet", "tcpSocket", "grpc")):
            base.pop("httpGet")
        fast[kind] = dict(base, **patch)
    kw.setdefault("log", verbose_sink())
    kw.setdefault("show_events", bool(os.environ.get("RLC_VERBOSE")))
    kw.setdefault("command", ["python3", TESTPOD])
    kw.setdefault("args", [])
    kw.setdefault("grace", 10)  # testpod exits on SIGTERM at once; a loaded machine may be slow
    if docs is None:
        docs = render(overlay, replicas)
    return tracked(Cluster(docs, env=env, probes=fast, **kw))


def info(pod, restart=-1):
    """The `info {...}` line testpod.py printed in a container start."""
    import json
    for line in pod.runs[restart].log:
        if line.text.startswith("info "):
            return json.loads(line.text[5:])
    raise AssertionError(f"{pod.name}: no info line in {pod.runs[restart].text()!r}")


def eq(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}: got {actual!r}, expected {expected!r}")


def _on_term(signum, _frame):
    raise SystemExit(128 + signum)  # unwinds the `with` blocks: teardown runs


def main(*tests):
    signal.signal(signal.SIGTERM, _on_term)
    try:
        check_host()
        kubectl()
    except (NeedsRoot, ManifestError) as e:
        print(f"SKIP: {os.path.basename(sys.argv[0])}: {e}")
        sys.exit(125)
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
            print(f"ok   {test.__name__} ({time.monotonic() - start:.1f} s)")
        except Skip as e:
            skipped += 1
            print(f"SKIP: {test.__name__}: {e}")
        except Exception:  # noqa: BLE001 - report every failing test, then fail
            failed += 1
            print(f"FAIL {test.__name__} ({time.monotonic() - start:.1f} s)")
            traceback.print_exc(file=sys.stdout)
            if "--- events" not in traceback.format_exc():  # wait_for's message has it already
                for c in _current:
                    if getattr(c, "events", None):
                        print(c.describe())
        finally:
            for c in _current:
                c.teardown()
    sys.exit(1 if failed else 125 if ran and skipped == ran else 0)
