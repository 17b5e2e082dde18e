#!/usr/bin/python3
"""Nothing leaves the machine and nothing is left behind: pods have no route out and reach
each other; teardown removes namespaces, processes and state; a run killed with SIGKILL is
swept by the next one; Ctrl-C on run-cluster deletes the pods gracefully and tears down;
two clusters run side by side."""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import netns  # noqa: E402
from harness.testing import CLUSTER_TESTS, TESTPOD, eq, main, testpod_cluster  # noqa: E402

CONNECT = """
import json, socket, sys
out = {}
for host, port in json.loads(sys.argv[1]):
    s = socket.socket(); s.settimeout(2)
    try:
        s.connect((host, port)); out[host] = "connected"
    except OSError as e:
        out[host] = e.strerror
print(json.dumps(out))
"""


def host_addresses():
    addrs = json.loads(subprocess.run(["ip", "-j", "-4", "addr"], capture_output=True, text=True).stdout)
    return [a["local"] for link in addrs for a in link.get("addr_info", []) if a["local"] != "127.0.0.1"]


def ready(c, n):
    c.wait_for(lambda: len(c.pods) == n and all(p.ready for p in c.pods), 30, f"{n} pods ready")


def test_no_route_out_and_pods_reach_each_other():
    with testpod_cluster("p4de", replicas=2) as c:
        c.start()
        ready(c, 2)
        peer = c.pod("training-1").ip
        targets = [[a, 22] for a in host_addresses()] + [["8.8.8.8", 53], ["1.1.1.1", 443], [peer, 8081]]
        rc, out = c.exec("training-0", ["python3", "-c", CONNECT, json.dumps(targets)])
        result = json.loads(out)
        eq(result.pop(peer), "connected", "pod to pod")
        for host, outcome in result.items():
            eq(outcome, "No route to host", f"from a pod to {host} (the node's ICMP answer)")
        rc, routes = c.exec("training-0", ["ip", "-4", "route"])
        eq(routes.splitlines(), ["default via 198.18.0.1 dev eth0 ",
                                 f"198.18.0.0/15 dev eth0 proto kernel scope link src {c.pod(0).ip} "],
           "a pod's routes")
        node_routes = subprocess.run(["ip", "-n", c.network.node, "-4", "route"], capture_output=True,
                                     text=True).stdout
        assert node_routes.startswith("unreachable default"), node_routes
        for name in c.network.namespaces:
            c.network.check_isolated(name)
        rc, out = c.exec("training-1", ["python3", "-c", "import urllib.request as u; print(u.urlopen("
                                        "'http://training-0.training.default.svc.cluster.local:8081/livez')"
                                        ".read().decode())"])
        eq(out.strip(), "livez 200", "by DNS name from a pod")
        host_links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
        assert "br0" not in host_links and " v1" not in host_links, "nothing of the cluster in the host namespace"


def test_without_a_default_route():
    with testpod_cluster("p4de", replicas=1, default_route=False) as c:
        c.start()
        ready(c, 1)
        rc, out = c.exec("training-0", ["python3", "-c", CONNECT, json.dumps([["8.8.8.8", 53]])])
        eq(json.loads(out), {"8.8.8.8": "Network is unreachable"}, "refused by the pod's own stack")
        rc, routes = c.exec("training-0", ["ip", "-4", "route"])
        eq(len(routes.strip().splitlines()), 1, "the connected route only")


def test_teardown_removes_everything():
    with testpod_cluster("p4de", replicas=2) as c:
        c.start()
        ready(c, 2)
        pids = [p.host_pid for p in c.pods] + [r.proc.pid for p in c.pods for r in p.runs] + [c.dns.proc.pid]
        names = list(c.network.namespaces)
        state = c.dir
    eq(c.leftovers(), [], "leftovers")
    alive = [pid for pid in pids if os.path.exists(f"/proc/{pid}")]
    eq(alive, [], "processes still running")
    left = [n for n in os.listdir(netns.NETNS_DIR) if n in names] if os.path.isdir(netns.NETNS_DIR) else []
    eq(left, [], "network namespaces")
    assert not os.path.exists(state), state
    assert c.run_id not in open("/proc/self/mountinfo").read(), "a mount left in the host"


KILLED_RUN = f"""
import sys, time
sys.path.insert(0, {CLUSTER_TESTS!r})
from harness.testing import testpod_cluster
c = testpod_cluster("p4de", replicas=1)
c.up(); c.start()
c.wait_for(lambda: c.pods and c.pods[0].ready, 30, "ready")
print(c.run_id, c.pods[0].host_pid, flush=True)
time.sleep(600)
"""


def test_a_killed_run_is_swept_by_the_next():
    proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN], stdout=subprocess.PIPE, text=True)
    run_id, pid1 = proc.stdout.readline().split()
    proc.kill()
    proc.wait()
    prefix = f"{netns.PREFIX}{run_id}-"
    assert any(n.startswith(prefix) for n in os.listdir(netns.NETNS_DIR)), "the killed run left namespaces"
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{pid1}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pid1}"), "the pod outlived its harness"
    netns.sweep_stale()  # (under ctest -j, another test's start-up may have swept it first)
    assert not any(n.startswith(prefix) for n in os.listdir(netns.NETNS_DIR)), "namespaces left"
    assert not os.path.exists(os.path.join(netns.STATE_ROOT, run_id))


def test_ctrl_c_deletes_the_pods_then_tears_down():
    # Its own process group, as a terminal's foreground job: Ctrl-C signals the whole group.
    proc = subprocess.Popen([os.path.join(CLUSTER_TESTS, "run-cluster"), "--overlay", "p4de",
                             "--replicas", "2", "--raylaunch", TESTPOD, "--grace", "10"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    lines = []
    while sum(" | listening" in line for line in lines) < 2:
        line = proc.stdout.readline()
        assert line, f"run-cluster ended early: {proc.stderr.read()}"
        lines.append(line)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    lines += out.splitlines()
    eq(proc.returncode, 0, f"exit status ({err})")
    run_id = err.split("run ")[1].split(":")[0]
    eq(sum("signal SIGTERM" in line for line in lines), 2, "each pod got SIGTERM (graceful delete)")
    assert not any("signal SIGINT" in line for line in lines), "Ctrl-C reached the pods"
    assert not any(n.startswith(f"{netns.PREFIX}{run_id}-") for n in os.listdir(netns.NETNS_DIR))
    assert not os.path.exists(os.path.join(netns.STATE_ROOT, run_id))


def test_two_clusters_side_by_side():
    with testpod_cluster("p4de", replicas=1) as a, testpod_cluster("p4de", replicas=1) as b:
        a.start()
        b.start()
        ready(a, 1)
        ready(b, 1)
        assert a.run_id != b.run_id
        eq(a.pod("training-0").ip, b.pod("training-0").ip, "same addresses, separate networks")
        a.http_get("training-0", 8081, "/set?readyz=503")
        a.wait_for(lambda: not a.pod(0).ready, 10, "a's pod not ready")
        assert b.pod(0).ready, "b is untouched"


if __name__ == "__main__":
    main(test_no_route_out_and_pods_reach_each_other,
         test_without_a_default_route,
         test_teardown_removes_everything,
         test_a_killed_run_is_swept_by_the_next,
         test_ctrl_c_deletes_the_pods_then_tears_down,
         test_two_clusters_side_by_side)
