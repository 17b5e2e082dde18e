"""What every real-Ray test file shares: the ctest contract (exit 0 pass, 1 fail, 125 skip with
one line), waits on conditions, a work directory in the namespace's own /run, and the pinned
releases of tests/ray-releases.txt with their virtualenvs (scripts/ray-venvs)."""
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
RELEASES_FILE = os.path.join(REPO, "tests", "ray-releases.txt")


class Skip(Exception):
    """The test cannot run here (exit 125 with one line); never used for a release that failed to
    install: that is a failure (NotInstalled)."""


class NotInstalled(Exception):
    """A pinned release is not installed; the message is pip's reason from scripts/ray-venvs."""


class Failure(AssertionError):
    pass


# --- releases ---------------------------------------------------------------------------------

def releases():
    """[(version, role)] of tests/ray-releases.txt, in file order."""
    out = []
    with open(RELEASES_FILE) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) >= 2:
                out.append((words[0], words[1]))
    return out


def current_release():
    return next(v for v, role in releases() if role == "current")


def version_tuple(version):
    return tuple(int(x) for x in re.findall(r"\d+", version)[:3])


def venv(version):
    """The virtualenv of `version`; NotInstalled with scripts/ray-venvs' reason otherwise."""
    listing = subprocess.run([os.path.join(REPO, "scripts", "ray-venvs"), "--list"], capture_output=True,
                             text=True, check=True).stdout
    for line in listing.splitlines():
        fields = line.split("\t")
        if fields[0] == version:
            if fields[2] == "installed":
                return fields[3]
            raise NotInstalled(f"ray {version} is {fields[2]}: {fields[3]}")
    raise NotInstalled(f"ray {version} is not in {RELEASES_FILE}")


def wait_for(condition, timeout, what, interval=0.2):
    """Polls `condition` until it returns something truthy (returned); Failure after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failure(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


# --- running a test file ----------------------------------------------------------------------

def main(*tests):
    """The ctest contract: 0 pass, 1 fail, 125 skip with one line. Runs `tests` in order, in the
    private namespaces."""
    try:
        from netns import enter_namespaces
        enter_namespaces()
        for test in tests:
            print(f"--- {test.__name__}", flush=True)
            t0 = time.monotonic()
            test()
            print(f"--- {test.__name__}: ok ({time.monotonic() - t0:.0f}s)", flush=True)
    except Skip as e:
        print(f"SKIP: {e}")
        sys.exit(125)
    except NotInstalled as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception:
        import traceback
        traceback.print_exc()
        _keep_work()
        sys.exit(1)
    sys.exit(0)


WORK_ROOT = "/run/raylaunch-tests"


def work_dir(name):
    """A directory of this test in the namespace's private /run (gone with the namespace; not
    under /tmp, which each node replaces with its own, so that paths here mean the same in nodes)."""
    path = os.path.join(WORK_ROOT, name)
    os.makedirs(path, exist_ok=True)
    return path


def _keep_work():
    """RAYLAUNCH_KEEP_WORK=DIR: a failed test's work (nodes' /tmp/ray logs included) copied there."""
    keep = os.environ.get("RAYLAUNCH_KEEP_WORK")
    if keep and os.path.isdir(WORK_ROOT):
        shutil.copytree(WORK_ROOT, keep, dirs_exist_ok=True, symlinks=True,
                        ignore=shutil.ignore_patterns("sockets", "*.sock"), ignore_dangling_symlinks=True)
        print(f"work kept in {keep}", file=sys.stderr)
