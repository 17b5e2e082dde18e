"""The obsolete or harmful environment values, read from raylaunch's own table.

launcher/plan/env_rules.json is the one source (its "about" says why and how); raylaunch embeds
the same file at build time, so `raylaunch plan` and the manifest rule legacy-fabric-env cannot
disagree. Rules with a `needs` key depend on a node fact (EFA devices, the huge-page limit) that
a manifest cannot show; the validator skips them.
"""
import json
import os

SCHEMA = "raylaunch.env-rules/v1"
DEFAULT_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            "launcher", "plan", "env_rules.json")


class EnvRules:
    def __init__(self, rules):
        self.by_name = {}
        for rule in rules:
            self.by_name.setdefault(rule["name"], []).append(rule)

    def problems(self, name, value):
        """(why, fix) for each rule `name`=`value` breaks; value None = unknown (only `always`)."""
        found = []
        for rule in self.by_name.get(name, []):
            if matches(rule["when"], value):
                found.append((rule["why"], rule["fix"]))
        return found


def matches(when, value):
    if when == "always":
        return True
    if value is None:
        return False  # the value comes from elsewhere (valueFrom, mpirun -x NAME): cannot tell
    (test, operand), = when.items()
    if test == "equals":
        return value == operand
    if test == "not_equals":
        return value != operand
    if test == "contains":
        return operand in value
    if test == "excludes_without":
        return value.startswith("^") and operand not in value  # NCCL's "^" exclusion list
    return any(part in value for part in operand)  # contains_any


def load(path=DEFAULT_PATH):
    """The validator's view of the table; ValueError names what is wrong with the file."""
    try:
        with open(path, encoding="utf-8") as f:
            table = json.load(f)
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read {path}: {err}") from err
    if not isinstance(table, dict) or table.get("schema") != SCHEMA:
        raise ValueError(f"{path}: expected \"schema\": \"{SCHEMA}\"")
    rules = []
    for index, rule in enumerate(table.get("rules") or []):
        where = f"{path}: rules[{index}]"
        if not isinstance(rule, dict) or not all(isinstance(rule.get(k), str) for k in ("name", "why", "fix")):
            raise ValueError(f"{where}: needs string name, why and fix")
        if not valid_when(rule.get("when")):
            raise ValueError(f"{where} ({rule['name']}): unknown `when` {json.dumps(rule.get('when'))}")
        if "needs" not in rule:
            rules.append(rule)
    return EnvRules(rules)


def valid_when(when):
    if when == "always":
        return True
    if not isinstance(when, dict) or len(when) != 1:
        return False
    (test, operand), = when.items()
    if test in ("equals", "not_equals", "contains", "excludes_without"):
        return isinstance(operand, str)
    return test == "contains_any" and isinstance(operand, list) and all(isinstance(v, str) for v in operand)
