"""The shapes of metrics: what a raylaunch /metrics scrape exports (names, types, label names and
the values each label takes), and the series and PromQL that the alert tests, the rules and the
dashboard write, read back in the same terms so that they can be compared with a real scrape.

No PromQL parser is at hand offline (promtool 2.42 has none to call), so expressions are read
for what this comparison needs: the raylaunch_* names, the functions around them, and the
label matchers right after a name. The real Prometheus of check_monitoring.py parses and runs
every expression as well.
"""
import re

LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"')
SAMPLE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)')
NAME = re.compile(r"\b(raylaunch_[a-z_]+)\b")
SELECTOR = re.compile(r"\b(raylaunch_[a-z_]+)\s*\{([^}]*)\}")
RATE = re.compile(r"\b(rate|irate|increase|resets)\s*\(\s*(raylaunch_[a-z_]+)")
EXPANDING = re.compile(r"^(_|stale|[-+]?[0-9.eE+-]+?)(?:([+-])([0-9.eE]+))?(?:x([0-9]+))?$")


class Family:
    """One metric family of a scrape: its type, and each label with the values seen."""

    def __init__(self, name, kind):
        self.name, self.kind = name, kind
        self.labels = {}  # label -> set of values

    def add(self, labels):
        for key, value in labels.items():
            self.labels.setdefault(key, set()).add(value)


def labels_of(text):
    """{...} (or the inside of one) -> {label: value}, for `=` matchers only."""
    return {k: v for k, op, v in LABEL.findall(text or "") if op == "="}


def parse_exposition(text, families=None):
    """Prometheus text format 0.0.4 -> {name: Family}; merged into `families` when given."""
    families = {} if families is None else families
    kinds = {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(None, 3)
            kinds[name] = kind.strip()
            families.setdefault(name, Family(name, kinds[name]))
        elif line and not line.startswith("#"):
            match = SAMPLE.match(line)
            if not match:
                raise ValueError(f"not a sample line: {line!r}")
            name = match.group(1)
            family = families.setdefault(name, Family(name, kinds.get(name, "untyped")))
            family.add(labels_of(match.group(2)))
    return families


def series_of(selector):
    """A promtool input series ('name{a="b"}') -> (name, labels)."""
    match = re.match(r"^\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*(\{.*\})?\s*$", selector)
    if not match:
        raise ValueError(f"not a series: {selector!r}")
    return match.group(1), labels_of(match.group(2))


def expand_values(text):
    """promtool's expanding notation ('0+12x5 60x3 _ stale') -> floats, None for _ and stale."""
    values = []
    for token in text.split():
        match = EXPANDING.match(token)
        if not match:
            raise ValueError(f"not promtool's expanding notation: {token!r}")
        start, sign, step, times = match.groups()
        if start in ("_", "stale"):
            values += [None] * (int(times or 0) + 1)
            continue
        delta = float(step or 0) * (-1 if sign == "-" else 1)
        values += [float(start) + i * delta for i in range(int(times or 0) + 1)]
    return values


def names_in(expr):
    return sorted(set(NAME.findall(expr)))


def matchers_in(expr):
    """(metric, label, operator, value) for the matchers right after a raylaunch_* name."""
    return [(name, label, op, value) for name, inside in SELECTOR.findall(expr)
            for label, op, value in LABEL.findall(inside)]


def rated_in(expr):
    """(function, metric) where a raylaunch_* name is the argument of rate, increase, ..."""
    return RATE.findall(expr)


def alternatives(regex):
    """The literal values of a simple `a|b|c` regex, or None when it is more than that."""
    return regex.split("|") if re.fullmatch(r"[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*", regex) else None
