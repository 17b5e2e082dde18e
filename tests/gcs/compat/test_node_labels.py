#!/usr/bin/env python3
"""Ray node labels from the pod (issue 28) on the current release's real scheduler.

Three pods started by `raylaunch run`, each with its own zone, capacity type or extra labels; the
head's command is a Ray program whose tasks carry a `label_selector` (and a placement group a
`bundle_label_selector`). Each task returns the node it ran on, named by Ray's node table: it must
be the pod the labels name. A task whose selector no node matches must stay pending. Ray's own
label (ray.io/node-id) must still be there beside raylaunch's.

On the pinned releases before 2.45 (ray start --labels takes a JSON dict there and refuses keys
under ray.io/), one pod each: its node carries raylaunch's own keys and the user's, and none of
raylaunch's ray.io/ keys, which the plan lists as not passed.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import raycluster as rc  # noqa: E402
from raycluster import Cluster, Failure, wait_for  # noqa: E402

# The head's command: run as the pod's program once every node has joined. Prints one RESULT line.
DRIVER = r'''
import json
import ray
from ray.util.placement_group import placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

ray.init(address="auto")
names = {n["NodeID"]: n["NodeName"] for n in ray.nodes() if n["Alive"]}

@ray.remote(num_cpus=0)
def where():
    return ray.get_runtime_context().get_node_id()

def lands(selector):
    return names[ray.get(where.options(label_selector=selector).remote(), timeout=120)]

out = {
    "zone a": lands({"ray.io/availability-zone": "us-west-2a"}),
    "spot": lands({"ray.io/market-type": "spot"}),
    "reserved": lands({"raylaunch/capacity-type": "reserved"}),
    "pod training-2": lands({"raylaunch/pod-name": "training-2"}),
    "index 1": lands({"raylaunch/pod-index": "1"}),
    "team vision in zone b": lands({"team": "vision", "ray.io/availability-zone": "us-west-2b"}),
    "not zone a, not spot": lands({"ray.io/availability-zone": "!us-west-2a", "ray.io/market-type": "!spot"}),
    "labels": {n["NodeName"]: n["Labels"] for n in ray.nodes() if n["Alive"]},
}
pg = placement_group([{"CPU": 1}], bundle_label_selector=[{"raylaunch/pod-index": "1"}])
ray.get(pg.ready(), timeout=120)
out["bundle on index 1"] = names[ray.get(
    where.options(scheduling_strategy=PlacementGroupSchedulingStrategy(pg)).remote(), timeout=120)]
# No node is in eu-north-1a: the task must not run (Ray keeps it pending, infeasible).
nowhere = where.options(label_selector={"ray.io/availability-zone": "eu-north-1a"}).remote()
ready, _ = ray.wait([nowhere], timeout=5)
out["unmatched ran within 5 s"] = bool(ready)
print("RESULT " + json.dumps(out), flush=True)
'''

PODS = {
    # name: what its pod's environment says (the base manifest: zone and region from the downward API)
    "training-0": {"RAYLAUNCH_ZONE": "us-west-2a", "RAYLAUNCH_REGION": "us-west-2", "RAYLAUNCH_CAPACITY_TYPE": "on-demand"},
    "training-1": {"RAYLAUNCH_ZONE": "us-west-2b", "RAYLAUNCH_REGION": "us-west-2", "RAYLAUNCH_CAPACITY_TYPE": "SPOT"},
    "training-2": {"RAYLAUNCH_ZONE": "us-west-2b", "RAYLAUNCH_REGION": "us-west-2",
                   "RAYLAUNCH_CAPACITY_TYPE": "CAPACITY_BLOCK", "RAYLAUNCH_NODE_LABELS": "team=vision"},
}

EXPECTED = {
    "zone a": "training-0",
    "spot": "training-1",
    "reserved": "training-2",
    "pod training-2": "training-2",
    "index 1": "training-1",
    "team vision in zone b": "training-2",
    "not zone a, not spot": "training-2",
    "bundle on index 1": "training-1",
    "unmatched ran within 5 s": False,
}


def expect(cond, message, detail=None):
    if not cond:
        raise Failure(message + (f"\n{detail}" if detail is not None else ""))


def test_label_selectors_land_on_the_labelled_pod():
    version = rc.current_release()
    with Cluster(version, rc.work_dir("node-labels")) as c:
        head = c.add_node("training-0", head=True)
        os.makedirs(os.path.join(head.dir, "tmp"), exist_ok=True)  # the pod's /tmp
        with open(os.path.join(head.dir, "tmp", "driver.py"), "w") as f:
            f.write(DRIVER)
        head.env.update(PODS["training-0"])
        head.start_raylaunch(nodes=3, command=["python3", "/tmp/driver.py"])
        workers = []
        for name in ("training-1", "training-2"):
            node = c.add_node(name)
            node.env.update(PODS[name])
            workers.append(node.start_raylaunch(nodes=3))
        wait_for(lambda: not head.alive(), 300, "the head's program to end")
        with open(head.log, errors="replace") as f:
            log = f.read()
        expect(head.proc.returncode == 0, f"the head's program ran (exit {head.proc.returncode})", log[-4000:])
        line = next((ln for ln in log.splitlines() if ln.startswith("RESULT ")), None)
        expect(line is not None, "the program printed its RESULT line", log[-4000:])
        got = json.loads(line[len("RESULT "):])
        labels = got.pop("labels")
        for what, want in EXPECTED.items():
            expect(got.get(what) == want, f"{what}: expected {want!r}, got {got.get(what)!r}", json.dumps(labels, indent=1))
        head_labels = labels["training-0"]
        for key, value in {"ray.io/availability-zone": "us-west-2a", "ray.io/availability-region": "us-west-2",
                           "ray.io/market-type": "on-demand", "raylaunch/capacity-type": "on-demand",
                           "raylaunch/pod-name": "training-0", "raylaunch/pod-index": "0"}.items():
            expect(head_labels.get(key) == value, f"training-0's label {key}={value}", json.dumps(head_labels))
        expect(labels["training-2"].get("ray.io/market-type") == "on-demand", "reserved is Ray's on-demand market",
               json.dumps(labels["training-2"]))
        expect(all("ray.io/node-id" in v for v in labels.values()), "Ray's own ray.io/node-id is kept", json.dumps(labels))
        for node in workers:
            node.stop()
    print(f"  Ray {version}: 8 selectors landed on the labelled pod; one no node matches stayed pending 5 s; "
          f"training-0's labels {json.dumps(head_labels, sort_keys=True)}", flush=True)


OLD_DRIVER = 'import json, ray\nray.init(address="auto")\nprint("RESULT " + json.dumps(ray.nodes()[0]["Labels"]), flush=True)\n'


def test_releases_before_2_45_take_the_json_form():
    old = [v for v, _ in rc.releases() if rc.version_tuple(v) < (2, 45)]
    expect(old, "tests/ray-releases.txt pins a release before 2.45")
    for version in old:
        with Cluster(version, rc.work_dir(f"node-labels-{version}")) as c:
            head = c.add_node("training-0", head=True)
            os.makedirs(os.path.join(head.dir, "tmp"), exist_ok=True)
            with open(os.path.join(head.dir, "tmp", "driver.py"), "w") as f:
                f.write(OLD_DRIVER)
            head.env.update({"RAYLAUNCH_ZONE": "us-west-2a", "RAYLAUNCH_CAPACITY_TYPE": "spot",
                             "RAYLAUNCH_NODE_LABELS": "team=vision"})
            head.start_raylaunch(nodes=1, command=["python3", "/tmp/driver.py"])
            wait_for(lambda: not head.alive(), 240, f"the program on Ray {version} to end")
            with open(head.log, errors="replace") as f:
                log = f.read()
            line = next((ln for ln in log.splitlines() if ln.startswith("RESULT ")), None)
            expect(head.proc.returncode == 0 and line is not None,
                   f"ray start took raylaunch's --labels on Ray {version} (exit {head.proc.returncode})", log[-4000:])
            labels = json.loads(line[len("RESULT "):])
            ours = {k: v for k, v in labels.items() if not k.startswith("ray.io/node")}  # Ray's node id: node_id before 2.4x
            want = {"raylaunch/capacity-type": "spot", "raylaunch/pod-name": "training-0", "raylaunch/pod-index": "0",
                    "team": "vision"}
            expect(ours == want, f"Ray {version}: the node's labels are raylaunch's and the user's, no ray.io/ key",
                   json.dumps(labels))
        print(f"  Ray {version}: {json.dumps(labels, sort_keys=True)}", flush=True)


if __name__ == "__main__":
    rc.main(test_label_selectors_land_on_the_labelled_pod, test_releases_before_2_45_take_the_json_form)
