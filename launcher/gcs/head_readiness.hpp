#pragma once
#include <chrono>
#include <optional>
#include <string>

#include "gcs/auth_token.hpp"
#include "gcs/clock.hpp"
#include "gcs/gcs_channel.hpp"

namespace launcher::gcs {

// Where a worker's view of its head stands, in the order the stages must pass.
enum class HeadStage { dns, tcp, gcs, ready };
const char* to_string(HeadStage stage);

// One attempt's outcome: the first stage that failed (or `ready`) and why.
struct HeadAttempt {
  HeadStage stage = HeadStage::dns;
  std::string detail;         // "connection refused", the gRPC error, or the Ray version
  std::optional<RpcError> rpc_error;  // set when the GCS stage failed with a gRPC error
};

// One pass through the stages, behind a seam for unit tests.
class HeadChecker {
 public:
  virtual ~HeadChecker() = default;
  virtual HeadAttempt attempt(std::chrono::milliseconds timeout) = 0;
  virtual std::string describe() const = 0;  // "head GCS at training-0.training…:6379"
};

// The real checker: c-ares lookup of the head name (the headless Service record can lag the
// pod by tens of seconds, kubernetes#92559, and CoreDNS caches NXDOMAIN, coredns#2434), a TCP
// connect to each address, then an empty CheckAlive, which every Ray 2.x GCS answers.
class GcsHeadChecker final : public HeadChecker {
 public:
  GcsHeadChecker(HostPort head, std::optional<AuthToken> token);
  ~GcsHeadChecker() override;
  HeadAttempt attempt(std::chrono::milliseconds timeout) override;
  std::string describe() const override;

 private:
  HostPort m_head;
  std::optional<AuthToken> m_token;
};

struct HeadWaitOptions {
  std::chrono::milliseconds timeout{300'000};
  std::chrono::milliseconds attempt_timeout{2'000};  // per stage
  std::chrono::milliseconds min_interval{250};
  std::chrono::milliseconds max_backoff{2'000};
  std::chrono::milliseconds progress_every{10'000};
};

enum class HeadOutcome { ready, unreachable, rejected };

struct HeadWaitResult {
  HeadOutcome outcome = HeadOutcome::unreachable;
  HeadAttempt last;
  int attempts = 0;
  std::chrono::milliseconds elapsed{0};
  std::string reason;  // one line when not ready: names the failing stage
};

// Retries `checker` with capped backoff until the head's GCS answers or the deadline passes,
// logging the failing stage ("DNS", "TCP connect", "GCS") at every change and every 10 s.
HeadWaitResult wait_for_head(HeadChecker& checker, const HeadWaitOptions& options, Clock& clock);

}  // namespace launcher::gcs
