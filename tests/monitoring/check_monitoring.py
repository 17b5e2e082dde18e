#!/usr/bin/python3
"""The kit's alerting rules and Grafana dashboard against what raylaunch really exports.

    check_monitoring.py --work DIR POD=ADDRESS...     (test_monitoring.sh runs it)

POD=ADDRESS are running raylaunch pods' health endpoints (a head and a worker). It scrapes their
/metrics, and then:
- every series of the promtool tests (alerts.test.yaml) is one raylaunch exports: its name and
  type, its labels raylaunch's own or the scrape's target labels, each value of raylaunch's
  labels one a scrape shows, a counter's values never falling;
- every raylaunch_* name, matcher and rate() of the rules and of the dashboard's queries is
  exported and typed so; every alert has a test in which it fires;
- `promtool check rules` and `promtool test rules` pass, on the rules as scripts/alert-rules
  prints them;
- a real Prometheus scrapes the pods as the kit's PodMonitor has them scraped (its path and
  honorLabels, the Operator's target labels) with the rules loaded: every dashboard query
  returns series, every rule evaluates without error.
Prints one line per check; exits 1 when one fails.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request

import yaml

from metric_shapes import (alternatives, expand_values, matchers_in, names_in, parse_exposition, rated_in,
                           series_of)
from real_prometheus import Prometheus

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
COMPONENT = os.path.join(REPO, "manifests", "components", "prometheus-operator")
DASHBOARD = os.path.join(REPO, "manifests", "grafana", "raylaunch.json")
ALERT_TESTS = os.path.join(HERE, "alerts.test.yaml")
# The labels the Prometheus Operator gives every series of a PodMonitor's target.
TARGET_LABELS = {"namespace", "pod", "container", "endpoint", "job", "instance"}
HEALTH_PORT_NAME = "health"  # the container port of RAYLAUNCH_HEALTH_PORT in manifests/base
# Grafana's variables, as a query of the whole range would have them.
GRAFANA_VARIABLES = {"$__rate_interval": "30s", "$__interval": "5s", "$__range": "1m",
                     "$namespace": ".*", "$pod": ".*"}

failures = []


def check(name, problems):
    problems = [p for p in problems if p]
    print(("ok   " if not problems else "FAIL ") + name + "".join(f"\n       {p}" for p in problems[:20]))
    if problems:
        failures.append(name)


def scrape(address):
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as response:
        return response.read().decode()


def health_endpoint():
    with open(os.path.join(COMPONENT, "podmonitor.yaml"), encoding="utf-8") as f:
        monitor = yaml.safe_load(f)
    return next(e for e in monitor["spec"]["podMetricsEndpoints"] if e.get("port") == HEALTH_PORT_NAME)


def series_problems(families, honored):
    """The promtool tests' input series against the scrape."""
    with open(ALERT_TESTS, encoding="utf-8") as f:
        tests = yaml.safe_load(f)["tests"]
    problems = []
    for test in tests:
        for entry in test["input_series"]:
            name, labels = series_of(entry["series"])
            family = families.get(name)
            where = f"{test['name']}: {entry['series']}"
            if family is None:
                problems.append(f"{where}: raylaunch exports no {name}")
                continue
            for label, value in labels.items():
                if label in family.labels:
                    if not honored and label in TARGET_LABELS:
                        problems.append(f"{where}: `{label}` is raylaunch's and a target label, and the PodMonitor "
                                        "does not honour labels: the series would have exported_" + label)
                    elif value not in family.labels[label]:
                        problems.append(f"{where}: {label}={value!r} is not a value raylaunch exports "
                                        f"({', '.join(sorted(family.labels[label]))})")
                elif label == "endpoint" and value != HEALTH_PORT_NAME:
                    problems.append(f"{where}: endpoint={value!r}, but the PodMonitor scrapes port {HEALTH_PORT_NAME}")
                elif label not in TARGET_LABELS:
                    problems.append(f"{where}: {name} has no label {label} (it has: "
                                    f"{', '.join(sorted(family.labels)) or 'none'}; target labels: "
                                    f"{', '.join(sorted(TARGET_LABELS))})")
            for label in family.labels:
                if label not in labels:
                    problems.append(f"{where}: lacks raylaunch's label {label}")
            values = [v for v in expand_values(entry["values"]) if v is not None]
            if family.kind == "counter" and any(b < a for a, b in zip(values, values[1:])):
                problems.append(f"{where}: a counter that falls ({entry['values']})")
    return problems


def expression_problems(where, expr, families):
    problems = []
    names = names_in(expr)
    if not names:
        problems.append(f"{where}: names no raylaunch metric: {expr}")
    for name in names:
        if name not in families:
            problems.append(f"{where}: raylaunch exports no {name}")
    for function, name in rated_in(expr):
        if name in families and families[name].kind != "counter":
            problems.append(f"{where}: {function}() of {name}, a {families[name].kind}")
    for name, label, op, value in matchers_in(expr):
        family = families.get(name)
        if family is None or value.startswith("$") or label in TARGET_LABELS - set(family.labels):
            continue
        if label not in family.labels:
            problems.append(f"{where}: {name} has no label {label}")
            continue
        wanted = [value] if op in ("=", "!=") else alternatives(value) or []
        problems += [f"{where}: {name}{{{label}{op}\"{value}\"}}: raylaunch exports no {label}={w!r}"
                     for w in wanted if w not in family.labels[label]]
    return problems


def rule_problems(rules, families):
    problems = []
    with open(ALERT_TESTS, encoding="utf-8") as f:
        tests = yaml.safe_load(f)["tests"]
    fired = {case["alertname"] for test in tests for case in test.get("alert_rule_test", []) if case.get("exp_alerts")}
    for rule in rules:
        problems += expression_problems(rule["alert"], rule["expr"], families)
        if rule["alert"] not in fired:
            problems.append(f"{rule['alert']}: no test in {os.path.basename(ALERT_TESTS)} in which it fires")
        if not all(key in rule.get("annotations", {}) for key in ("summary", "description")):
            problems.append(f"{rule['alert']}: needs a summary and a description (what, why, what to do)")
    return problems


def dashboard_queries():
    """(panel title, query with Grafana's variables filled in) of every panel and variable."""
    with open(DASHBOARD, encoding="utf-8") as f:
        dashboard = json.load(f)
    found = []

    def walk(panels):
        for panel in panels:
            walk(panel.get("panels", []))
            if panel.get("type") == "row":
                continue
            targets = panel.get("targets") or []
            found.extend((panel["title"], t.get("expr", "")) for t in targets)
            if not targets:
                found.append((panel["title"], ""))
    walk(dashboard["panels"])
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            query = variable["query"]["query"] if isinstance(variable["query"], dict) else variable["query"]
            found.append((f"variable {variable['name']}", query))
    filled = []
    for title, expr in found:
        for variable, value in GRAFANA_VARIABLES.items():
            expr = expr.replace(variable, value)
        filled.append((title, expr))
    return filled


def as_promql(query):
    """Grafana's label_values(SELECTOR, LABEL) as the PromQL that asks the same."""
    match = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", query.strip())
    return f"group by ({match.group(2)}) ({match.group(1)})" if match else query


def promtool(work, rule_text):
    rules = os.path.join(work, "raylaunch.rules.yaml")
    with open(rules, "w", encoding="utf-8") as f:
        f.write(rule_text)
    shutil.copy(ALERT_TESTS, work)
    results = []
    for args in (["check", "rules", rules], ["test", "rules", os.path.join(work, os.path.basename(ALERT_TESTS))]):
        proc = subprocess.run(["promtool"] + args, capture_output=True, text=True, cwd=work, check=False)
        results.append([] if proc.returncode == 0 else [f"promtool {' '.join(args[:2])}: exit {proc.returncode}: "
                                                        + (proc.stdout + proc.stderr).strip()])
    return rules, results


def real_prometheus(work, port, pods, rules_file, queries):
    labels = lambda pod: {"namespace": "raylaunch-test", "pod": pod, "container": "ray",  # noqa: E731
                          "endpoint": HEALTH_PORT_NAME, "job": "raylaunch-test/training"}
    targets = [(address, labels(pod)) for pod, address in pods]
    with Prometheus(work, port, targets, health_endpoint(), rules_file) as prom:
        prom.wait_for(lambda: prom.query("count(count_over_time(raylaunch_uptime_seconds[1m]) >= 3)")[1]
                      and prom.query("count(count_over_time(raylaunch_uptime_seconds[1m]) >= 3)")[1][0]["value"][1]
                      == str(len(pods)), 60, "three scrapes of every pod")
        dashboard = []
        for title, expr in queries:
            status, result = prom.query(as_promql(expr))
            if status != "success":
                dashboard.append(f"{title}: {expr}: {result}")
            elif not result:
                dashboard.append(f"{title}: {expr}: no series on a Prometheus scraping a head and a worker")
        check(f"every dashboard query returns series on a real Prometheus ({len(queries)} queries)", dashboard)
        _, kept = prom.query('raylaunch_probe_requests_total{endpoint="readyz", result="fail"}')
        check("the probe counter keeps its own `endpoint` through the PodMonitor's scrape (honorLabels)",
              [] if kept else ['no raylaunch_probe_requests_total{endpoint="readyz"}: renamed exported_endpoint?'])
        prom.wait_for(lambda: all(r.get("lastEvaluation", "").startswith("2") and not r["lastEvaluation"].startswith(
            "0001") for r in prom.rules()), 30, "every rule evaluated")
        check(f"every rule evaluates on a real Prometheus ({len(prom.rules())} rules)",
              [f"{r['name']}: {r['health']} {r.get('lastError', '')}" for r in prom.rules() if r["health"] != "ok"])


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", required=True)
    parser.add_argument("--prometheus-port", type=int, required=True)
    parser.add_argument("pods", nargs="+", metavar="POD=ADDRESS")
    args = parser.parse_args(argv)
    pods = [tuple(p.split("=", 1)) for p in args.pods]
    families = {}
    for _, address in pods:
        parse_exposition(scrape(address), families)
    check(f"scraped {len(families)} families from {len(pods)} pods", [] if families else ["nothing scraped"])
    endpoint = health_endpoint()
    check("the promtool tests' series are shaped as raylaunch exports them",
          series_problems(families, bool(endpoint.get("honorLabels"))))
    rule_text = subprocess.run([os.path.join(REPO, "scripts", "alert-rules")], capture_output=True, text=True,
                               check=True).stdout
    rules = [r for g in yaml.safe_load(rule_text)["groups"] for r in g["rules"]]
    check(f"the rules read what raylaunch exports, and each fires in a test ({len(rules)} rules)",
          rule_problems(rules, families))
    rules_file, (checked, tested) = promtool(args.work, rule_text)
    check("promtool check rules", checked)
    check("promtool test rules", tested)
    queries = dashboard_queries()
    check(f"every dashboard query names what raylaunch exports ({len(queries)} queries)",
          [p for title, expr in queries for p in expression_problems(title, expr, families)])
    real_prometheus(args.work, args.prometheus_port, pods, rules_file, queries)
    print(f"{len(failures)} checks failed" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
