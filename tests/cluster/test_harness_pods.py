#!/usr/bin/python3
"""Pods from the real overlays: names, hostnames, labels, environment and $(VAR) expansion
as Kubernetes gives them, `raylaunch` on PATH resolving to the binary under test, the
command as PID 1 of its own PID namespace, the kubelet's files, the securityContext."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness.testing import TESTPOD, eq, info, main, testpod_cluster  # noqa: E402


def test_statefulset_pods_run_the_overlays_command_with_raylaunch_on_path():
    # testpod.py stands in for the binary under test: the overlay's own command line
    # (`raylaunch run -- python3 ... cluster.num_nodes=$(RAYLAUNCH_NODES) ...`) runs it.
    with testpod_cluster("p4de", replicas=3, raylaunch=TESTPOD, command=None, args=None,
                         namespace="ml") as c:
        c.start()
        c.wait_for(lambda: len(c.pods) == 3 and all(p.ready for p in c.pods), 20, "3 pods ready")
        eq([p.name for p in c.pods], ["training-0", "training-1", "training-2"], "pod names")
        for i, p in enumerate(c.pods):
            got = info(p)
            eq(got["hostname"], f"training-{i}", "hostname")
            eq(got["argv"][0], "/usr/local/bin/raylaunch", "argv[0] found on PATH")
            args = got["argv"][1:]
            eq(args[:3], ["run", "--", "python3"], "command as written")
            assert "cluster.num_nodes=3" in args, args
            assert "actor.model.model_path=/fsx/models/openvla-oft-sft-libero10" in args, args
            assert "runner.logger.log_path=/fsx/checkpoints/maniskill-ppo-openvlaoft" in args, args
            env = got["env"]
            eq(env["POD_NAMESPACE"], "ml", "downward API metadata.namespace")
            eq(env["RAYLAUNCH_NODES"], "3", "RAYLAUNCH_NODES follows replicas")
            eq(env["HOSTNAME"], f"training-{i}", "HOSTNAME")
            eq(p.labels["apps.kubernetes.io/pod-index"], str(i), "pod-index label")
            eq(p.labels["statefulset.kubernetes.io/pod-name"], p.name, "pod-name label")
            eq(p.spec["subdomain"], "training", "subdomain = serviceName")
            # The command itself is PID 1, not a wrapper: seen from inside and from the host.
            eq(got["pid"], 1, "pid inside the pod")
            status = open(f"/proc/{p.host_pid}/status").read()
            nspid = re.search(r"^NSpid:\s+(.*)$", status, re.M).group(1).split()
            eq(nspid[-1], "1", "NSpid of the host pid")
            cmdline = open(f"/proc/{p.host_pid}/cmdline").read().split("\0")
            eq(cmdline[1], "/usr/local/bin/raylaunch", "PID 1's command line")
            # securityContext of the overlay: capabilities drop ALL, add IPC_LOCK.
            eq(re.search(r"^CapBnd:\s+(\w+)$", status, re.M).group(1), f"{1 << 14:016x}", "capabilities")
            eq(re.search(r"^NoNewPrivs:\s+(\d)$", status, re.M).group(1), "1", "allowPrivilegeEscalation false")
        rc, hosts = c.exec("training-1", ["cat", "/etc/hosts"])
        ip = c.pod("training-1").ip
        assert f"{ip}\ttraining-1.training.ml.svc.cluster.local\ttraining-1" in hosts, hosts
        rc, resolv = c.exec("training-1", ["cat", "/etc/resolv.conf"])
        eq(resolv, "search ml.svc.cluster.local svc.cluster.local cluster.local\n"
                   "nameserver 198.18.0.10\noptions ndots:5\n", "resolv.conf")
        rc, procs = c.exec("training-2", ["ls", "/proc"])
        pids = sorted(int(x) for x in procs.split() if x.isdigit())
        eq(pids[0], 1, "the PID namespace starts at the container")
        p2 = c.pod("training-2")
        eq(c.processes("training-2")[0], (p2.host_pid, 1, "raylaunch"), "PID 1 seen from the host")
        # A name of this run's own: the host's /tmp may hold anything (CI's had a directory /tmp/x).
        private = f"/tmp/raylaunch-private-{os.getpid()}"
        c.exec("training-2", ["sh", "-c", f"echo in-pod > {private}"])
        eq(open(c.path_in("training-2", private)).read(), "in-pod\n", "the pod's private /tmp")
        assert not os.path.exists(private), f"{private} written in the pod appeared on the host"


def test_indexed_job_pods_get_index_hostname_and_random_suffix():
    with testpod_cluster("indexed-job", replicas=3) as c:
        c.start()
        c.wait_for(lambda: len(c.pods) == 3 and all(p.ready for p in c.pods), 20, "3 pods ready")
        for p in c.pods:
            got = info(p)
            index = p.annotations["batch.kubernetes.io/job-completion-index"]
            assert re.fullmatch(rf"training-{index}-[bcdfghjklmnpqrstvwxz2456789]{{5}}", p.name), p.name
            eq(got["hostname"], f"training-{index}", "hostname <job>-<index>")
            eq(got["env"]["JOB_COMPLETION_INDEX"], index, "JOB_COMPLETION_INDEX")
            eq(got["env"]["RAYLAUNCH_NODES"], "3", "RAYLAUNCH_NODES follows completions")
            eq(p.labels["batch.kubernetes.io/job-completion-index"], index, "index label")
            eq(p.restart_policy, "Never", "the Job template's restartPolicy")
        rc, hosts = c.exec(c.pods[0].name, ["cat", "/etc/hosts"])
        p = c.pods[0]
        assert f"{p.ip}\t{p.hostname}.training.default.svc.cluster.local\t{p.hostname}" in hosts, hosts


def test_env_overrides_and_private_termination_logs():
    with testpod_cluster("p4de", replicas=2, env={"MODEL_PATH": "/models/x", "EXTRA": "$(MODEL_PATH)/y"},
                         image_env={"FAKE_GCS": "/bin/true"}, path_prefix=["/opt/fakes"]) as c:
        c.start()
        c.wait_for(lambda: len(c.pods) == 2 and all(p.ready for p in c.pods), 20, "2 pods ready")
        env = info(c.pod("training-0"))["env"]
        eq(env["MODEL_PATH"], "/models/x", "override")
        eq(env["EXTRA"], "/models/x/y", "appended entry expands earlier ones")
        eq(env["FAKE_GCS"], "/bin/true", "test's image env")
        assert env["PATH"].startswith("/opt/fakes:/usr/local/sbin:"), env["PATH"]
        for p in c.pods:
            c.exec(p.name, ["sh", "-c", f"echo message of {p.name} > /dev/termination-log"])
        c.stop()
        for p in c.all_pods:
            eq(p.termination_message, f"message of {p.name}\n", "termination message")


if __name__ == "__main__":
    main(test_statefulset_pods_run_the_overlays_command_with_raylaunch_on_path,
         test_indexed_job_pods_get_index_hostname_and_random_suffix,
         test_env_overrides_and_private_termination_logs)
