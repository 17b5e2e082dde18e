"""FAKE Ray CLI, for tests only: command-line parsing that behaves like Ray's click CLI.

Ray's `ray start` and `ray stop` are click commands (python/ray/scripts/scripts.py). What a caller
can observe of click is reproduced: `--opt value` and `--opt=value`, the last of a repeated option
wins, usage errors exit 2 with "Usage: ...", "Try '... --help' for help." and "Error: ..." on
stderr (No such option, with click's "Did you mean" hint; requires an argument; does not take a
value; is not a valid integer/boolean; unexpected extra argument). The option set is `ray start`'s
around Ray 2.40-2.48 plus click's logging options (add_click_logging_options).
"""

import difflib
import sys

# kind: "flag" (no value), "str", "int", "bool" (click BOOL), "count" (-v, repeatable)
START_OPTIONS = {
    "--node-ip-address": "str", "--address": "str", "--port": "int", "--node-name": "str",
    "--redis-username": "str", "--redis-password": "str", "--redis-shard-ports": "str",
    "--object-manager-port": "int", "--node-manager-port": "int", "--gcs-server-port": "int",
    "--min-worker-port": "int", "--max-worker-port": "int", "--worker-port-list": "str",
    "--ray-client-server-port": "int", "--memory": "int", "--object-store-memory": "int",
    "--redis-max-memory": "int", "--num-cpus": "int", "--num-gpus": "int", "--resources": "str",
    "--head": "flag", "--include-dashboard": "bool", "--dashboard-host": "str",
    "--dashboard-port": "int", "--dashboard-agent-listen-port": "int",
    "--dashboard-agent-grpc-port": "int", "--dashboard-grpc-port": "int",
    "--runtime-env-agent-port": "int", "--block": "flag", "--plasma-directory": "str",
    "--autoscaling-config": "str", "--no-redirect-output": "flag",
    "--plasma-store-socket-name": "str", "--raylet-socket-name": "str", "--temp-dir": "str",
    "--storage": "str", "--system-config": "str", "--enable-object-reconstruction": "flag",
    "--metrics-export-port": "int", "--no-monitor": "flag", "--tracing-startup-hook": "str",
    "--ray-debugger-external": "flag", "--disable-usage-stats": "flag", "--labels": "str",
    "--labels-file": "str", "--include-log-monitor": "bool",
}
STOP_OPTIONS = {"--force": "flag", "-f": "flag", "--grace-period": "int", "-g": "int"}
LOGGING_OPTIONS = {"--log-style": "str", "--log-color": "str", "--verbose": "count", "-v": "count"}
ALIASES = {"-f": "--force", "-g": "--grace-period", "-v": "--verbose"}

_TRUE = {"1", "true", "t", "yes", "y", "on"}
_FALSE = {"0", "false", "f", "no", "n", "off"}


class UsageError(Exception):
    """A click usage error: exit 2."""


def _convert(name, kind, raw):
    if kind == "int":
        try:
            return int(raw.strip())
        except ValueError:
            raise UsageError(f"Invalid value for '{name}': '{raw}' is not a valid integer.") from None
    if kind == "bool":
        low = raw.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise UsageError(f"Invalid value for '{name}': '{raw}' is not a valid boolean.")
    return raw


def parse(args, table):
    """Returns {canonical option name without dashes, '_' for '-': value}; raises UsageError."""
    table = {**table, **LOGGING_OPTIONS}
    values = {}
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            if i < len(args):
                raise UsageError(f"Got unexpected extra argument ({args[i]})")
            break
        if not arg.startswith("-") or arg == "-":
            raise UsageError(f"Got unexpected extra argument ({arg})")
        name, eq, inline = arg.partition("=")
        if name not in table:
            message = f"No such option: {name}"
            close = difflib.get_close_matches(name, [o for o in table if o.startswith("--")])
            if close:
                message += f" Did you mean {close[0]}?" if len(close) == 1 else \
                    f" (Possible options: {', '.join(sorted(close))})"
            raise UsageError(message)
        kind = table[name]
        key = ALIASES.get(name, name)[2:].replace("-", "_")
        if kind in ("flag", "count"):
            if eq:
                raise UsageError(f"Option '{name}' does not take a value.")
            values[key] = values.get(key, 0) + 1 if kind == "count" else True
            continue
        if eq:
            raw = inline
        elif i < len(args):
            raw = args[i]
            i += 1
        else:
            raise UsageError(f"Option '{name}' requires an argument.")
        values[key] = _convert(name, kind, raw)
    return values


def usage_error(command, message):
    """click's usage-error output; returns the exit status 2."""
    sys.stderr.write(f"Usage: ray {command} [OPTIONS]\nTry 'ray {command} --help' for help.\n\n"
                     f"Error: {message}\n")
    sys.stderr.flush()
    return 2


def help_text(command, table):
    lines = [f"Usage: ray {command} [OPTIONS]", "", f"  FAKE `ray {command}` (tests/fakes/ray).", "",
             "Options:"]
    for name, kind in table.items():
        lines.append(f"  {name}" + ("" if kind in ("flag", "count") else f" {kind.upper()}"))
    lines.append("  --help  Show this message and exit.")
    return "\n".join(lines) + "\n"
