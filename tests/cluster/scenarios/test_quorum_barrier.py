#!/usr/bin/python3
"""A quorum barrier (issue 19 item 4), on the real Ray: 3 pods, RAYLAUNCH_MIN_NODES=2,
RAYLAUNCH_QUORUM_GRACE=5s, training-2 not scheduled. Once training-0 and training-1 have been
ALIVE for the grace, the program starts with them, told so (RAYLAUNCH_NODES_PRESENT=2) and
seeing 2 nodes; /metrics says 2 present of 3 expected. When training-2 comes, it still joins
Ray: the head's GCS has 3 ALIVE nodes under the running program."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from survive import program  # noqa: E402
from harness import realray  # noqa: E402
from harness.scenario import raylaunch_cluster, wait_log  # noqa: E402
from harness.testing import eq, main  # noqa: E402



def test_two_of_three_start_after_the_grace_and_the_third_joins_later():
    with raylaunch_cluster("p4de", replicas=3, env={"RAYLAUNCH_MIN_NODES": "2", "RAYLAUNCH_QUORUM_GRACE": "5s"},
                           launch=program("--wait")) as c:
        c.start(hold=["training-2"])
        wait_log(c, "training-0", "2/3 nodes alive: a quorum (--min-nodes 2)", 240)
        wait_log(c, "training-0", "SURVIVE started on training-0: restart 0, 2 nodes present", 60)
        head = c.pod("training-0").current
        assert "a quorum (--min-nodes 2) after its 5s grace" in head.text(), head.text()[-3000:]
        wait_log(c, "training-0", "SURVIVE ray.init() connected: 2 ALIVE nodes: training-0 training-1", 120)
        ok, _, metrics = c.http_get("training-0", 8081, "/metrics")
        assert ok and "raylaunch_nodes_present 2\n" in metrics and "raylaunch_nodes_expected 3\n" in metrics, metrics

        c.release("training-2")
        c.wait_for(lambda: sorted(r[1] for r in realray.nodes(c, c.venv) if r[0] == "ALIVE") ==
                   ["training-0", "training-1", "training-2"], 240, "training-2 ALIVE in the head's GCS")
        eq(head.text().count("SURVIVE started"), 1, "the program runs once")


if __name__ == "__main__":
    main(test_two_of_three_start_after_the_grace_and_the_third_joins_later)
