"""FAKE Ray CLI, for tests only: output as Ray's cli_logger gives it when stdout is no terminal."""

import sys


def say(text, err=False):
    """One flushed write: a supervisor reading a pipe sees each line when it is printed."""
    stream = sys.stderr if err else sys.stdout
    try:
        stream.write(text + "\n")
        stream.flush()
    except OSError:
        pass  # the reader went away; keep running as the processes we started do


def fail_like_ray(message, template):
    """cli_logger.abort in record style: the formatted message, then click's ClickException with
    the unformatted template (what Ray really prints), exit 1."""
    say(message, err=True)
    say(f"Error: {template}", err=True)
    sys.exit(1)
