"""FAKE Ray CLI, for tests only: output as Ray's cli_logger gives it when stdout is no terminal."""

import sys


class _Pacified:
    """click's PacifyFlushWrapper: a stream whose EPIPE on flush is swallowed on the way out."""

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def write(self, text):
        try:
            return self._wrapped.write(text)
        except BrokenPipeError:
            return len(text)

    def flush(self):
        try:
            self._wrapped.flush()
        except BrokenPipeError:
            pass

    def __getattr__(self, name):
        return getattr(self._wrapped, name)


def say(text, err=False):
    """One flushed write: a supervisor reading a pipe sees each line when it is printed.

    Writing into a pipe nobody reads fails as Ray's CLI does: Python ignores SIGPIPE, so the
    write raises BrokenPipeError, and click's main (BaseCommand.main, `except OSError` with
    errno EPIPE) swaps in pacified streams and exits 1 at once, saying nothing. Whatever the
    command had left to do is not done: measured with Ray 2.60's `ray stop` and a closed stdout,
    it exits 1 silently after SIGTERM to the raylet, leaving gcs_server and the dashboard
    processes running. (This fake once swallowed EPIPE and kept going, and so hid a supervisor
    that closed `ray stop`'s pipe.)"""
    stream = sys.stderr if err else sys.stdout
    try:
        stream.write(text + "\n")
        stream.flush()
    except BrokenPipeError:
        sys.stdout = _Pacified(sys.stdout)
        sys.stderr = _Pacified(sys.stderr)
        sys.exit(1)


def fail_like_ray(message, template):
    """cli_logger.abort in record style: the formatted message, then click's ClickException with
    the unformatted template (what Ray really prints), exit 1."""
    say(message, err=True)
    say(f"Error: {template}", err=True)
    sys.exit(1)
