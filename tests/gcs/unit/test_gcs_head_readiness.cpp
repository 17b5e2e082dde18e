#include <catch2/catch.hpp>
#include <deque>

#include "fakes.hpp"
#include "gcs/head_readiness.hpp"

using namespace launcher::gcs;
using namespace std::chrono_literals;
using gcs_test::FakeClock;

namespace {

class ScriptedChecker final : public HeadChecker {
 public:
  explicit ScriptedChecker(std::deque<HeadAttempt> script) : m_script(std::move(script)) {}
  HeadAttempt attempt(std::chrono::milliseconds /*timeout*/) override { return m_script.next(); }
  std::string describe() const override { return "head GCS at training-0.t.ml.svc.cluster.local:6379"; }

 private:
  gcs_test::Script<HeadAttempt> m_script;
};

HeadAttempt at(HeadStage stage, const std::string& detail) { return HeadAttempt{stage, detail, std::nullopt}; }

}  // namespace

TEST_CASE("the head wait passes DNS, TCP and GCS stages in turn") {
  FakeClock clock;
  ScriptedChecker checker({at(HeadStage::dns, "name not found"), at(HeadStage::tcp, "Connection refused"),
                           at(HeadStage::gcs, "UNAVAILABLE"), at(HeadStage::ready, "2.9.0")});
  HeadWaitOptions o;
  o.timeout = 60s;
  const HeadWaitResult r = wait_for_head(checker, o, clock);
  CHECK(r.outcome == HeadOutcome::ready);
  CHECK(r.attempts == 4);
  CHECK(r.last.detail == "2.9.0");
}

TEST_CASE("the head wait names the failing stage at the deadline") {
  FakeClock clock;
  ScriptedChecker checker({at(HeadStage::tcp, "Connection refused (10.0.0.1:6379)")});
  HeadWaitOptions o;
  o.timeout = 20s;
  const HeadWaitResult r = wait_for_head(checker, o, clock);
  CHECK(r.outcome == HeadOutcome::unreachable);
  CHECK(r.reason == "head GCS at training-0.t.ml.svc.cluster.local:6379 not ready at the 20s deadline: "
                    "TCP connect stage failing: Connection refused (10.0.0.1:6379)");
}

TEST_CASE("the head wait stops at UNAUTHENTICATED") {
  FakeClock clock;
  HeadAttempt a = at(HeadStage::gcs, "UNAUTHENTICATED: InvalidAuthToken");
  a.rpc_error = RpcError{16, 0, "InvalidAuthToken"};
  ScriptedChecker checker({a});
  const HeadWaitResult r = wait_for_head(checker, HeadWaitOptions{}, clock);
  CHECK(r.outcome == HeadOutcome::rejected);
  CHECK(r.attempts == 1);
}
