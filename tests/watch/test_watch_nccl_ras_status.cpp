// Parsing NCCL's RAS status dumps, in the layouts of NVIDIA/nccl v2.30.4 src/ras/client_support.cc
// (rasClientRunComms for text, the same since 2.24; rasDumpCommsToJSON for JSON, since 2.29).
#include <catch2/catch.hpp>

#include "watch/nccl_ras_status.hpp"

using namespace launcher::watch;

namespace {

// A 2.26 dump: 16 ranks on 2 nodes; rank 11 is one AllReduce behind, and its process is gone.
const char* k_text = R"(NCCL version 2.26.5+cuda12.8
CUDA runtime version 12080, driver version 12080

Job summary
===========

  Nodes  Processes         GPUs  Processes     GPUs
(total)   per node  per process    (total)  (total)
      2          8            1         16       16

Communicators... (0.003s)
=============

Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
    #  in group  per comm  per node  per comm  in group
    0         1         2         8        16        16   RUNNING  INCOMPLETE,MISMATCH
    1         2         1         8         8        16   RUNNING  OK

Errors
======

DEAD
  1 job process is considered dead (unreachable via the RAS network)
  Process 4242 on node 10.0.0.7 managing GPU 3

#0-0 (00007f3a2b1c9d8e) INCOMPLETE
  Missing communicator data from 1 rank
  Rank 12 -- GPU 4 (NVML 5) managed by process 4243 on node 10.0.0.7

Warnings
========

#0-0 (00007f3a2b1c9d8e) MISMATCH
  Communicator ranks have different AllReduce operation counts
  14 ranks have launched up to operation 1200
  Rank 11 has launched up to operation 1199 -- GPU 3 managed by process 4242 on node 10.0.0.7

)";

const char* k_json = R"({
  "nccl_version": "2.30.4",
  "cuda_runtime_version": 12080,
  "cuda_driver_version": 12080,
  "timestamp": "2026-12-02 12:00:00",
  "communicators_count": 1,
  "communicators": [
    {
      "hash": "0x7f3a2b1c9d8e",
      "secondary_hash": "0x1:0x2",
      "size": 3,
      "ranks_count": 2,
      "missing_ranks_count": 1,
      "ranks": [
        {"rank": 0, "host": "10.0.0.1", "pid": 101, "cuda_dev": 0, "nvml_dev": 0,
         "status": {"init_state": 0, "async_error": 0, "finalize_called": false, "destroy_flag": false, "abort_flag": false},
         "collective_counts": {"Broadcast": 1, "Reduce": 0, "AllGather": 0, "ReduceScatter": 0, "AllReduce": 50}},
        {"rank": 1, "host": "10.0.0.2", "pid": 201, "cuda_dev": 0, "nvml_dev": 0,
         "status": {"init_state": 0, "async_error": 6, "finalize_called": false, "destroy_flag": false, "abort_flag": false},
         "collective_counts": {"Broadcast": 1, "Reduce": 0, "AllGather": 0, "ReduceScatter": 0, "AllReduce": 49}}
      ],
      "missing_ranks": [
        {"rank": 2, "host": "10.0.0.3", "pid": 301, "cuda_dev": 0, "nvml_dev": 0,
         "status": {"unresponsive": true, "considered_dead": true}}
      ]
    }
  ],
  "ras": {"collection_time_sec": 0.012, "timeouts_count": 0}
}
)";

}  // namespace

TEST_CASE("RAS text dump (NCCL 2.24-2.28): communicators, the lagging and missing ranks, the dead", "[watch]") {
  const auto s = parse_ras_status({2, RasFormat::text, k_text});
  REQUIRE(s.ok());
  CHECK(s->nccl_version == "2.26.5");
  CHECK(s->communicators == 3);  // from the summary table: 1 + 2
  CHECK(s->dead_processes == 1);
  CHECK(s->dead == std::vector<std::string>{"process 4242 on node 10.0.0.7"});
  REQUIRE(s->comms.size() == 1);  // only the one with errors or warnings is detailed
  const RasComm& c = s->comms[0];
  CHECK(c.hash == "7f3a2b1c9d8e");
  CHECK(c.size == 16);  // its group's row in the summary table
  CHECK(c.counts_differ);
  CHECK(c.missing_count == 1);
  CHECK(c.waiting());
  const auto lagging = c.lagging();
  REQUIRE(lagging.size() == 2);
  CHECK(describe_rank(lagging[0]) == "rank 11 (GPU 3, process 4242 on node 10.0.0.7) at AllReduce 1199");
  CHECK(describe_rank(lagging[1]) == "rank 12 (GPU 4, process 4243 on node 10.0.0.7)");
}

TEST_CASE("RAS text dump: agreeing communicators have no block; the progress key follows the blocks", "[watch]") {
  std::string healthy = k_text;
  healthy = healthy.substr(0, healthy.find("\nErrors\n")) + "\nErrors\n======\n\nWarnings\n========\n\n";
  const auto s = parse_ras_status({2, RasFormat::text, healthy});
  REQUIRE(s.ok());
  CHECK(s->comms.empty());
  CHECK(s->communicators == 3);

  std::string moved = k_text;
  moved.replace(moved.find("operation 1199"), 14, "operation 1200");
  const auto a = parse_ras_status({2, RasFormat::text, k_text});
  const auto b = parse_ras_status({2, RasFormat::text, moved});
  CHECK(a->comms[0].progress != b->comms[0].progress);
}

TEST_CASE("RAS JSON dump (NCCL >= 2.29): every rank's counts, errors, missing and dead ranks", "[watch]") {
  const auto s = parse_ras_status({2, RasFormat::json, k_json});
  REQUIRE(s.ok());
  CHECK(s->nccl_version == "2.30.4");
  CHECK(s->communicators == 1);
  const RasComm& c = s->comms[0];
  CHECK(c.hash == "7f3a2b1c9d8e");  // the same name as text gives it
  CHECK(c.size == 3);
  CHECK(c.counts_differ);
  CHECK(c.error);  // async_error 6: ncclRemoteError
  CHECK(c.missing_count == 1);
  REQUIRE(c.ranks.size() == 2);
  CHECK(c.ranks[0].ops == 51u);
  const auto lagging = c.lagging();
  REQUIRE(lagging.size() == 2);
  CHECK(describe_rank(lagging[0]) == "rank 1 (GPU 0, process 201 on node 10.0.0.2) at operation 50");
  CHECK(lagging[1].rank == 2);
  CHECK(s->dead == std::vector<std::string>{"process 301 on node 10.0.0.3"});
}

TEST_CASE("RAS dumps that are neither format fail with one line", "[watch]") {
  CHECK(parse_ras_status({2, RasFormat::text, ""}).error() ==
        "not an NCCL RAS status dump: it does not begin with \"NCCL version\" (empty)");
  CHECK(parse_ras_status({2, RasFormat::text, "HTTP/1.1 200 OK\r\n"}).error().starts_with(
      "not an NCCL RAS status dump: it does not begin with \"NCCL version\" ('HTTP/1.1 200 OK"));
  CHECK(parse_ras_status({2, RasFormat::json, "{\"nccl_version\": 1"}).error() ==
        "not an NCCL RAS status dump: the JSON has no \"communicators\" array");
  CHECK(parse_ras_status({2, RasFormat::json, R"({"communicators": [{"ranks": 5}]})"}).error().starts_with(
      "not an NCCL RAS status dump: unexpected JSON"));
}
