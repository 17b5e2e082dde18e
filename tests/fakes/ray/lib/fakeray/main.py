"""FAKE Ray CLI, for tests only: `ray start`, `ray stop`, `ray --version`, and click's group
behaviour for anything else (unknown command: exit 2)."""

import os
import sys

from . import options
from .record import write_record
from .say import say

COMMANDS = {"start": options.START_OPTIONS, "stop": options.STOP_OPTIONS}


def main(argv):
    write_record(argv)
    args = argv[1:]
    version = os.environ.get("FAKE_RAY_VERSION", "2.9.0")
    if not args or args[0] == "--help":
        say("Usage: ray [OPTIONS] COMMAND [ARGS]...\n\n  FAKE Ray CLI (tests/fakes/ray).\n\nCommands:\n  start\n  stop")
        return 0
    if args[0] == "--version":
        say(f"ray, version {version}")
        return 0
    command = args[0]
    if command not in COMMANDS:
        error = f"No such option: {command}" if command.startswith("-") else f"No such command '{command}'."
        sys.stderr.write(f"Usage: ray [OPTIONS] COMMAND [ARGS]...\nTry 'ray --help' for help.\n\nError: {error}\n")
        return 2
    table = COMMANDS[command]
    if "--help" in args[1:]:
        say(options.help_text(command, table))
        return 0
    try:
        opts = options.parse(args[1:], table)
    except options.UsageError as e:
        return options.usage_error(command, str(e))
    if command == "start":
        from .start import Start
        return Start(opts).run()
    from .stop import stop
    return stop(opts)
