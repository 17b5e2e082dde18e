#!/usr/bin/python3
"""Cluster DNS: the headless Service's records for every pod as the pods resolve them
(resolv.conf search list, ndots), a record withheld (NXDOMAIN) and published late,
publishNotReadyAddresses false (a record only while the pod is ready), nothing forwarded."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import manifest  # noqa: E402
from harness.testing import eq, main, testpod_cluster, tracked  # noqa: E402
from harness.cluster import Cluster  # noqa: E402
from harness.testing import HTTP_PROBES, TESTPOD  # noqa: E402

FQDN = "training-{}.training.default.svc.cluster.local"


def getent(c, pod, name):
    rc, out = c.exec(pod, ["getent", "ahostsv4", name])
    return rc, sorted({line.split()[0] for line in out.splitlines() if line.strip()})


def test_records_for_every_pod_as_pods_resolve_them():
    with testpod_cluster("p4de", replicas=3) as c:
        c.start()
        c.wait_for(lambda: len(c.pods) == 3 and all(p.ready for p in c.pods), 20, "3 pods ready")
        ips = [c.pod(i).ip for i in range(3)]
        for i in range(3):
            eq(c.dns.resolve(FQDN.format(i)), ("NOERROR", [ips[i]]), f"record of training-{i}")
        eq(getent(c, "training-2", FQDN.format(0)), (0, [ips[0]]), "FQDN from a pod")
        eq(getent(c, "training-2", "training-1.training"), (0, [ips[1]]), "short name via the search list")
        eq(getent(c, "training-0", "training"), (0, sorted(ips)), "the Service name: every pod")
        eq(c.dns.resolve("training-9.training.default.svc.cluster.local")[0], "NXDOMAIN", "no such pod")
        # Nothing is recursed: outside names are refused, and dnsmasq forwarded nothing.
        eq(c.dns.resolve("example.com")[0], "REFUSED", "outside name")
        eq(getent(c, "training-1", "example.com")[0], 2, "outside name from a pod")
        c.dns.add("extra.default.svc.cluster.local", "198.18.9.9")
        eq(getent(c, "training-1", "extra")[1], ["198.18.9.9"], "a record the test added")
        log = open(c.dns.log).read()
        assert "query[A] training-1.training.default.svc.cluster.local" in log, log[-2000:]
        assert "forwarded" not in log, "dnsmasq forwarded a query"


def test_record_withheld_then_published_late():
    with testpod_cluster("p4de", replicas=2) as c:
        c.dns.withhold("training-0")
        c.start()
        c.wait_for(lambda: len(c.pods) == 2 and all(p.ready for p in c.pods), 20, "2 pods ready")
        eq(c.dns.resolve(FQDN.format(0))[0], "NXDOMAIN", "withheld record")
        eq(getent(c, "training-1", FQDN.format(0))[0], 2, "withheld record from a pod")
        eq(c.dns.resolve(FQDN.format(1)), ("NOERROR", [c.pod(1).ip]), "the other record")
        c.dns.publish("training-0")
        eq(getent(c, "training-1", FQDN.format(0)), (0, [c.pod(0).ip]), "published late")


def test_publish_not_ready_addresses_false():
    docs = manifest.render("p4de", replicas=2)
    for d in docs:
        if d["kind"] == "Service" and d["metadata"]["name"] == "training":
            d["spec"]["publishNotReadyAddresses"] = False
    probes = {k: dict(p, periodSeconds=0.1, timeoutSeconds=2, failureThreshold=2) for k, p in HTTP_PROBES.items()}
    probes["startup"]["failureThreshold"] = 100
    probes["liveness"]["failureThreshold"] = 20
    # testpod listens after 1 s: until then the pods are not ready and have no record.
    with tracked(Cluster(docs, command=["python3", TESTPOD], args=[], probes=probes, grace=10,
                         env={"TESTPOD_LISTEN_AFTER": "1"})) as c:
        c.start()
        c.wait_for(lambda: len(c.pods) == 2 and all(p.running for p in c.pods), 20, "2 pods running")
        eq(c.dns.resolve(FQDN.format(1))[0], "NXDOMAIN", "not ready yet: no record")
        c.wait_for(lambda: all(p.ready for p in c.pods), 20, "2 pods ready")
        c.dns.wait(FQDN.format(1), present=True)
        c.http_get("training-1", 8081, "/set?readyz=503")
        c.wait_for(lambda: not c.pod(1).ready, 10, "training-1 not ready")
        c.dns.wait(FQDN.format(1), present=False)
        eq(c.dns.resolve("training.default.svc.cluster.local")[1], [c.pod(0).ip], "Service: ready pods only")
        c.http_get("training-1", 8081, "/set?readyz=200")
        c.wait_for(lambda: c.pod(1).ready, 10, "training-1 ready again")
        eq(c.dns.wait(FQDN.format(1), present=True), [c.pod(1).ip], "record back")


if __name__ == "__main__":
    main(test_records_for_every_pod_as_pods_resolve_them,
         test_record_withheld_then_published_late,
         test_publish_not_ready_addresses_false)
