"""raylaunch's duration grammar, for the manifest validator.

The same grammar as raylaunch's own parser (launcher/util/parse.cpp), pinned by the shared test
vectors in tests/data/durations.tsv, which the C++ unit tests and tests/manifests/selftest both
read, so the validator never accepts a value raylaunch rejects or the other way round:

    duration := digits                      a bare number is seconds ("300")
              | (digits unit)+              one or more groups, in any order ("1m30s", "1500ms")
    unit     := "ms" | "s" | "m" | "h"
    digits   := [0-9]+                      ASCII only; no sign, no blanks, no decimal point

The total must be more than 0 and at most 168 h; anything longer is a typo (4294967295m).
"""
import re

MAX_MS = 168 * 3_600_000
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}
# "ms" before "m" and "s": the alternation takes the first that matches.
_GROUP = re.compile(r"([0-9]+)(ms|s|m|h)", re.ASCII)
_BARE = re.compile(r"[0-9]+", re.ASCII)


def parse_ms(text):
    """Milliseconds for a valid duration, None for anything raylaunch would reject."""
    if not isinstance(text, str):
        return None
    if _BARE.fullmatch(text):
        total = int(text) * 1000
    else:
        total, pos = 0, 0
        while pos < len(text):
            match = _GROUP.match(text, pos)
            if not match:
                return None
            total += int(match.group(1)) * _UNIT_MS[match.group(2)]
            pos = match.end()
        if pos == 0:
            return None  # empty text
    return total if 0 < total <= MAX_MS else None


def parse_seconds(text):
    """Whole seconds, rounded up (a probe window must cover the full duration), or None."""
    ms = parse_ms(text)
    return None if ms is None else -(-ms // 1000)


EXPECTED = "a positive duration of at most 168h such as 300, 300s, 5m, 1h, 1500ms or 1m30s"
