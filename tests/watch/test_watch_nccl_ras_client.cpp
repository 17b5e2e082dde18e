// The RAS client against the FAKE RAS server (tests/fakes/nccl_ras/fake_ras.py), which speaks the
// protocol as NCCL's server does: the handshake, SET FORMAT since 2.29, the dump, and its faults.
#include <catch2/catch.hpp>

#include <chrono>

#include "fake_ras.hpp"
#include "watch/nccl_ras_client.hpp"
#include "watch/nccl_ras_status.hpp"

using namespace launcher;
using namespace launcher::watch;
using namespace std::chrono_literals;

namespace {

net::HostPort at(const fake_ras::Server& s) { return {"127.0.0.1", s.port()}; }

RasLimits quick(std::chrono::milliseconds deadline = 3s) {
  RasLimits l;
  l.deadline = deadline;
  return l;
}

}  // namespace

TEST_CASE("RAS client: NCCL >= 2.29 answers SET FORMAT: the JSON dump, every rank's counts", "[watch][ras]") {
  fake_ras::Server server(fake_ras::job_json(16, 11));
  const auto dump = query_ras_status(at(server), quick());
  REQUIRE(dump.ok());
  CHECK(dump->server_protocol == 2);
  CHECK(dump->format == RasFormat::json);
  const auto status = parse_ras_status(*dump);
  REQUIRE(status.ok());
  REQUIRE(status->comms.size() == 1);
  CHECK(status->comms[0].ranks.size() == 16);
  CHECK(describe_rank(status->comms[0].lagging().at(0)) == "rank 11 (GPU 3, process 1011 on node 10.0.0.2) at operation 101");
}

TEST_CASE("RAS client: an NCCL before 2.29 refuses SET FORMAT and speaks text; the same ranks come out",
          "[watch][ras]") {
  fake_ras::Server server(fake_ras::job_json(16, 11), {"--nccl", "2.26.5"});
  const auto dump = query_ras_status(at(server), quick());
  REQUIRE(dump.ok());
  CHECK(dump->format == RasFormat::text);
  const auto status = parse_ras_status(*dump);
  REQUIRE(status.ok());
  CHECK(status->nccl_version == "2.26.5");
  REQUIRE(status->comms.size() == 1);
  CHECK(describe_rank(status->comms[0].lagging().at(0)) == "rank 11 (GPU 3, process 1011 on node 10.0.0.2) at AllReduce 99");
}

TEST_CASE("RAS client: nothing listening, a server that stalls, vanishes or is not RAS: one line, within the deadline",
          "[watch][ras]") {
  SECTION("refused") {
    const auto r = query_ras_status({"127.0.0.1", 1}, quick());
    CHECK(r.error().starts_with("cannot connect to the NCCL RAS at 127.0.0.1:1: "));
  }
  SECTION("stall") {
    fake_ras::Server server(fake_ras::job_json(4, -1), {"--fault", "stall"});
    const auto started = std::chrono::steady_clock::now();
    const auto r = query_ras_status(at(server), quick(1s));
    CHECK(r.error() == "no answer within 1s from the NCCL RAS at 127.0.0.1:" + std::to_string(server.port()));
    CHECK(std::chrono::steady_clock::now() - started < 3s);
  }
  SECTION("stall, stopped") {
    fake_ras::Server server(fake_ras::job_json(4, -1), {"--fault", "stall"});
    std::stop_source stop;
    std::thread stopper([&stop] {
      std::this_thread::sleep_for(200ms);
      stop.request_stop();
    });
    const auto started = std::chrono::steady_clock::now();
    CHECK(query_ras_status(at(server), quick(10s), stop.get_token()).error() == "stopped");
    CHECK(std::chrono::steady_clock::now() - started < 2s);
    stopper.join();
  }
  SECTION("vanish") {
    fake_ras::Server server(fake_ras::job_json(4, -1), {"--fault", "vanish"});
    // A process that dies closes its socket: FIN, or RST when our handshake was already in it.
    const std::string why = query_ras_status(at(server), quick()).error();
    CHECK((why.find("closed the connection") != std::string::npos || why.find("Connection reset") != std::string::npos));
    CHECK(why.find("NCCL RAS at 127.0.0.1:" + std::to_string(server.port())) != std::string::npos);
  }
  SECTION("garbage") {
    fake_ras::Server server(fake_ras::job_json(4, -1), {"--fault", "garbage"});
    CHECK(query_ras_status(at(server), quick()).error() ==
          "the server at 127.0.0.1:" + std::to_string(server.port()) +
              " is not an NCCL RAS: it answered 'HTTP/1.0 400 Bad Request'");
  }
}

TEST_CASE("RAS client: a dump that is junk, that never ends, or that breaks off: refused, bounded", "[watch][ras]") {
  SECTION("junk") {
    fake_ras::Server server(fake_ras::job_json(4, -1), {"--fault", "junk"});
    const auto dump = query_ras_status(at(server), quick());
    REQUIRE(dump.ok());
    CHECK(parse_ras_status(*dump).error() == "not an NCCL RAS status dump: the JSON has no \"communicators\" array");
  }
  SECTION("huge") {
    fake_ras::Server server(fake_ras::job_json(4, -1), {"--fault", "huge"});
    RasLimits limits = quick();
    limits.max_bytes = 1 << 20;
    CHECK(query_ras_status(at(server), limits).error() ==
          "the NCCL RAS status dump from 127.0.0.1:" + std::to_string(server.port()) + " exceeded 1Mi: ignored");
  }
  SECTION("midway") {
    // The server's process dies in the middle of the dump: half a JSON document.
    fake_ras::Server server(fake_ras::job_json(4, -1), {"--fault", "midway"});
    const auto dump = query_ras_status(at(server), quick());
    REQUIRE(dump.ok());
    CHECK(parse_ras_status(*dump).error() == "not an NCCL RAS status dump: the JSON has no \"communicators\" array");
  }
}

TEST_CASE("RAS client: the job the fake renders changes between polls, as a running job's does", "[watch][ras]") {
  fake_ras::Server server(fake_ras::job_json(4, 3, 100), {"--advance"});
  const auto first = parse_ras_status(*query_ras_status(at(server), quick()));
  const auto second = parse_ras_status(*query_ras_status(at(server), quick()));
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(first->comms[0].progress != second->comms[0].progress);
}
