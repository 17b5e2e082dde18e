#include <catch2/catch.hpp>
#include <deque>

#include "fakes.hpp"
#include "gcs/waits.hpp"

using namespace launcher::gcs;
using namespace std::chrono_literals;
using gcs_test::FakeClock;
using Kind = launcher::util::Attempt::Kind;
using launcher::util::Attempt;
using launcher::util::WaitEnd;

namespace {

const std::string k_head = "head GCS at training-0.t.ml.svc.cluster.local:6379";

// A head check that plays a script of stage results (the last one repeats).
launcher::net::AttemptFn script(std::deque<Attempt> attempts) {
  auto s = std::make_shared<gcs_test::Script<Attempt>>(std::move(attempts));
  return [s](std::chrono::milliseconds, std::stop_token) { return s->next(); };
}

}  // namespace

TEST_CASE("the head wait passes DNS, TCP and GCS stages in turn") {
  FakeClock clock;
  const auto r = wait_for_head(k_head,
                               script({{Kind::failed, "DNS stage failing: name not found"},
                                       {Kind::failed, "TCP connect stage failing: Connection refused"},
                                       {Kind::failed, "GCS stage failing: UNAVAILABLE"}, {Kind::done, "2.9.0"}}),
                               launcher::net::staged_wait_options(60s), clock, {});
  CHECK(r.end == WaitEnd::ready);
  CHECK(r.attempts == 4);
  CHECK(r.answer == "2.9.0");
}

TEST_CASE("the head wait names the failing stage at the deadline") {
  FakeClock clock;
  const auto r = wait_for_head(k_head, script({{Kind::failed, "TCP connect stage failing: Connection refused (10.0.0.1:6379)"}}),
                               launcher::net::staged_wait_options(20s), clock, {});
  CHECK(r.end == WaitEnd::unreachable);
  CHECK(r.reason == k_head + " not ready at the 20s deadline: TCP connect stage failing: Connection refused (10.0.0.1:6379)");
}

TEST_CASE("the head wait stops at a refusal") {
  FakeClock clock;
  const auto r = wait_for_head(k_head, script({{Kind::refused, "rejected the request: UNAUTHENTICATED: InvalidAuthToken"}}),
                               launcher::net::staged_wait_options(60s), clock, {});
  CHECK(r.end == WaitEnd::refused);
  CHECK(r.attempts == 1);
  CHECK(r.reason == k_head + ": rejected the request: UNAUTHENTICATED: InvalidAuthToken");
}

TEST_CASE("the head wait ends at once when stopped") {
  FakeClock clock;
  std::stop_source stop;
  stop.request_stop();
  const auto r = wait_for_head(k_head, script({{Kind::failed, "DNS stage failing: x"}}), launcher::net::staged_wait_options(60s), clock,
                               stop.get_token());
  CHECK(r.end == WaitEnd::stopped);
  CHECK(r.attempts == 0);
}
