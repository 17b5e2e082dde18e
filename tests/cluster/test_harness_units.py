#!/usr/bin/python3
"""The harness's pure pieces, without root: the kubelet's $(VAR) expansion and env order,
the kubelet-written files, test overrides and time scaling, Job index lists, finding the real
Ray (a missing release fails a test: never a skip)."""
import os
import subprocess
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import containerspec as cs  # noqa: E402
from harness.expand import expand  # noqa: E402
from harness.job import parse_indexes  # noqa: E402
from harness.overrides import Overrides, parse_duration_ms, scale_duration  # noqa: E402
from harness.testing import CLUSTER_TESTS, eq  # noqa: E402

NODE = {"name": "n", "ip": "198.18.0.1", "api_ip": "198.18.0.1"}


def pod(env, command=None, **spec):
    return {"metadata": {"name": "training-1", "namespace": "ml", "uid": "u",
                         "labels": {"app": "x"}, "annotations": {"a/b": "c"}},
            "spec": dict({"hostname": "training-1", "subdomain": "training",
                          "containers": [{"name": "ray", "env": env, "command": command or ["x"]}]}, **spec),
            "status": {"podIP": "198.18.1.7"}}


def test_expand():
    d = {"A": "1", "B": "two"}
    eq(expand("$(A)-$(B)", d), "1-two", "references")
    eq(expand("$(MISSING)", d), "$(MISSING)", "unknown reference kept")
    eq(expand("$$(A)", d), "$(A)", "escaped reference")
    eq(expand("$$$(A)", d), "$1", "escape then reference")
    eq(expand("a$b$", d), "a$b$", "other dollars kept")
    eq(expand("$(A", d), "$(A", "unterminated")
    eq(expand("$($(A))", d), "$($(A))", "no nesting: the name is `$(A`")
    eq(expand("", d), "", "empty")


def test_env_order_and_downward_api():
    p = pod([{"name": "LATER_REF", "value": "$(B)"}, {"name": "B", "value": "b"},
             {"name": "C", "value": "$(B)/$(POD)"},
             {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
             {"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
             {"name": "L", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
             {"name": "AN", "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['a/b']"}}},
             {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
             {"name": "K", "value": "$(KUBERNETES_SERVICE_HOST)"}],
            command=["run", "$(C)", "$(LATER_REF)", "$$(B)", "$(PATH)"])
    env = dict(cs.container_env(p, p["spec"]["containers"][0], NODE, {}, {}))
    eq(env["LATER_REF"], "$(B)", "only earlier entries expand in env")
    eq(env["C"], "b/$(POD)", "POD is defined after C")
    eq((env["POD"], env["NS"], env["L"], env["AN"], env["IP"]),
       ("training-1", "ml", "x", "c", "198.18.1.7"), "downward API")
    eq(env["K"], "198.18.0.1", "service variables are defined for expansion")
    kenv = cs.container_env(p, p["spec"]["containers"][0], NODE, {}, {})
    eq(cs.argv(p["spec"]["containers"][0], kenv), ["run", "b/$(POD)", "$(B)", "$(B)", "$(PATH)"],
       "command sees every entry; image env (PATH) is not a pod variable")


def test_secret_refs_and_missing_ones():
    p = pod([{"name": "PW", "valueFrom": {"secretKeyRef": {"name": "redis", "key": "password"}}}])
    c = p["spec"]["containers"][0]
    eq(dict(cs.container_env(p, c, NODE, {"redis": {"password": "s3"}}, {}))["PW"], "s3", "secret")
    try:
        cs.container_env(p, c, NODE, {}, {})
        raise AssertionError("a missing secret must fail the container config")
    except cs.ConfigError:
        pass


def test_kubelet_files():
    p = pod([], hostAliases=[{"ip": "10.0.0.1", "hostnames": ["a", "b"]}])
    hosts = cs.hosts_file(p, "cluster.local")
    assert hosts.startswith("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n"), hosts
    assert "198.18.1.7\ttraining-1.training.ml.svc.cluster.local\ttraining-1\n" in hosts, hosts
    assert hosts.endswith("# Entries added by HostAliases.\n10.0.0.1\ta\tb\n"), hosts
    eq(cs.resolv_conf(p, "cluster.local", "198.18.0.10"),
       "search ml.svc.cluster.local svc.cluster.local cluster.local\nnameserver 198.18.0.10\n"
       "options ndots:5\n", "resolv.conf")
    p["spec"].pop("subdomain")
    assert "198.18.1.7\ttraining-1\n" in cs.hosts_file(p, "cluster.local"), "no subdomain: no FQDN"


def test_security_context():
    c = {"securityContext": {"capabilities": {"drop": ["ALL"], "add": ["IPC_LOCK"]},
                             "allowPrivilegeEscalation": False}}
    s = cs.security({}, c)
    eq((s["caps"], s["no_new_privs"], s["uid"]), ([14], True, None), "drop ALL, add IPC_LOCK")
    eq(len(cs.security({}, {})["caps"]), 14, "the runtime's default set")
    try:
        cs.security({"securityContext": {"runAsNonRoot": True}}, {})
        raise AssertionError("runAsNonRoot without a user must not start")
    except cs.ConfigError:
        pass


def test_overrides_and_time_scale():
    manifest = {"spec": {"terminationGracePeriodSeconds": 120, "containers": [{
        "name": "ray", "command": ["raylaunch", "run", "--", "python3", "train.py"],
        "env": [{"name": "RAYLAUNCH_JOIN_TIMEOUT", "value": "10m"}, {"name": "X", "value": "1"}],
        "livenessProbe": {"exec": {"command": ["raylaunch", "probe", "liveness"]},
                          "periodSeconds": 10, "timeoutSeconds": 3}}]}}
    o = Overrides(launch=["sleep", "1"], env={"X": None, "Y": "2"}, time_scale=0.01,
                  probes={"liveness": {"httpGet": {"path": "/livez", "port": 8081}}})
    c = o.apply(manifest)["spec"]["containers"][0]
    eq(c["command"], ["raylaunch", "run", "--", "sleep", "1"], "launch replaced after --")
    eq(c["env"], [{"name": "RAYLAUNCH_JOIN_TIMEOUT", "value": "6000ms"}, {"name": "Y", "value": "2"}], "env")
    eq(c["livenessProbe"], {"httpGet": {"path": "/livez", "port": 8081}, "periodSeconds": 0.1,
                            "timeoutSeconds": 3}, "probe: handler replaced, period scaled, timeout kept")
    eq(manifest["spec"]["terminationGracePeriodSeconds"], 1.2, "grace scaled")
    eq([parse_duration_ms(x) for x in ("300", "300s", "5m", "1h", "1500ms", "1m30s")],
       [300000, 300000, 300000, 3600000, 1500, 90000], "durations")
    eq(scale_duration("1800s", 0.01), "18000ms", "scaled duration")


def test_index_lists():
    eq(parse_indexes("0,2-4, 7"), {0, 2, 3, 4, 7}, "succeededIndexes syntax")


# A scenario's main() when the Ray release is missing (check_host and kubectl stubbed: the
# outcome must not depend on root).
MISSING_RAY = f"""
import sys
sys.path.insert(0, {CLUSTER_TESTS!r})
from harness import testing
testing.check_host = lambda: None
testing.kubectl = lambda: None
def test_needs_ray():
    from harness import realray
    realray.current_venv()
testing.main(test_needs_ray)
"""


def test_a_missing_ray_release_fails_loudly():
    with tempfile.TemporaryDirectory() as empty:
        env = dict(os.environ, RAYLAUNCH_RAY_CACHE=empty)
        proc = subprocess.run([sys.executable, "-c", MISSING_RAY], env=env, capture_output=True, text=True)
    eq(proc.returncode, 1, f"exit status (1 = failed; 125 would be a skip)\n{proc.stdout}{proc.stderr}")
    assert "FAIL test_needs_ray" in proc.stdout, proc.stdout
    assert "the current Ray release is not installed" in proc.stdout and "scripts/ray-venvs" in proc.stdout, \
        proc.stdout


TESTS = [test_expand, test_env_order_and_downward_api, test_secret_refs_and_missing_ones,
         test_kubelet_files, test_security_context, test_overrides_and_time_scale, test_index_lists,
         test_a_missing_ray_release_fails_loudly]

if __name__ == "__main__":
    failed = 0
    for t in TESTS:
        try:
            t()
            print(f"ok   {t.__name__}")
        except Exception:  # noqa: BLE001
            failed += 1
            print(f"FAIL {t.__name__}")
            traceback.print_exc(file=sys.stdout)
    sys.exit(1 if failed else 0)
