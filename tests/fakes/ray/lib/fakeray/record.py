"""FAKE Ray CLI, for tests only: one JSON record per invocation in $FAKE_RAY_RECORD_DIR.

Tests read it to see what `ray` really received from its parent: argv, environment, pid/ppid,
process group and session, and the signal state from /proc/self/status (SigBlk, SigIgn, SigCgt).

The record is taken first thing, before anything is parsed. The Python interpreter itself sets
SIGPIPE and SIGXFSZ to ignored while it starts, so their SigIgn bits say nothing about what the
parent gave; they are listed under "interpreter_ignores" and tests must not judge by them. (Ray's
own `ray` is Python too, and subprocess resets those two for Ray's children.) Every other bit of
SigIgn, and all of SigBlk, is exactly what the parent left: Python blocks nothing at start-up and
keeps an inherited ignored SIGINT ignored.
"""

import json
import os
import signal
import time

INTERPRETER_IGNORES = ["SIGPIPE", "SIGXFSZ"]


def _signal_names(mask_hex):
    mask = int(mask_hex, 16)
    names = []
    for n in range(1, 65):
        if mask & (1 << (n - 1)):
            try:
                names.append(signal.Signals(n).name)
            except ValueError:
                names.append(f"SIG{n}")
    return names


def _status_fields():
    fields = {}
    with open("/proc/self/status", encoding="ascii", errors="replace") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("SigBlk", "SigIgn", "SigCgt", "SigPnd", "ShdPnd"):
                fields[key] = value.strip()
    return fields


def write_record(argv):
    """Writes $FAKE_RAY_RECORD_DIR/ray-<command>-<time_ns>-<pid>.json; returns its path or None."""
    directory = os.environ.get("FAKE_RAY_RECORD_DIR")
    if not directory:
        return None
    status = _status_fields()
    command = argv[1] if len(argv) > 1 and not argv[1].startswith("-") else ""
    record = {
        "argv": list(argv),
        "command": command,
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "pgid": os.getpgid(0),
        "sid": os.getsid(0),
        "uid": os.getuid(),
        "cwd": os.getcwd(),
        "time": time.time(),
        "env": dict(os.environ),
        "signals": {
            "SigBlk": status.get("SigBlk", ""),
            "SigIgn": status.get("SigIgn", ""),
            "SigCgt": status.get("SigCgt", ""),
            "blocked": _signal_names(status.get("SigBlk", "0")),
            "ignored": _signal_names(status.get("SigIgn", "0")),
            "interpreter_ignores": INTERPRETER_IGNORES,
        },
    }
    os.makedirs(directory, exist_ok=True)
    name = f"ray-{command or 'none'}-{time.time_ns()}-{os.getpid()}.json"
    path = os.path.join(directory, name)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1, sort_keys=True)
    os.rename(tmp, path)  # readers never see half a record
    return path
