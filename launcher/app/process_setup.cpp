#include "app/process_setup.hpp"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>
#include <system_error>

#include "app/stderr_sink.hpp"
#include "gcs/gcs_channel.hpp"
#include "util/json.hpp"
#include "util/redact.hpp"
#include "util/signals.hpp"
#include "util/strings.hpp"

namespace launcher {

void block_handled_signals() { pthread_sigmask(SIG_BLOCK, &util::blocked_signals(), nullptr); }

void setup_process(const Config& config, SignalMode mode) {
  pthread_sigmask(mode == SignalMode::handled ? SIG_BLOCK : SIG_UNBLOCK, &util::blocked_signals(), nullptr);
  setup_logging(config.log_format, config.log_level);
  gcs::route_grpc_logs();
}

namespace {

constexpr std::size_t k_max_message = 8192;
// What stderr may fall behind by before lines are dropped (and counted), and how long a flush
// (at exit, before --exec) waits for a stalled reader.
constexpr std::size_t k_max_backlog = 256 << 10;
constexpr std::chrono::milliseconds k_flush_timeout{1'000};

// Formats one record: the payload redacted and escaped first, then text or JSON around it.
class SafeFormatter final : public spdlog::formatter {
 public:
  explicit SafeFormatter(LogFormat format)
      : m_format(format),
        m_prefix(format == LogFormat::json ? "%Y-%m-%dT%H:%M:%S.%e%z" : "%Y-%m-%dT%H:%M:%S.%e [%l raylaunch %P] ",
                 spdlog::pattern_time_type::local, "") {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const std::string payload(msg.payload.data(), msg.payload.size());
    const std::string text = util::printable(util::redact(payload), k_max_message);
    spdlog::details::log_msg empty = msg;
    empty.payload = "";
    spdlog::memory_buf_t prefix;
    m_prefix.format(empty, prefix);
    std::string line;
    if (m_format == LogFormat::json) {
      util::Json doc;
      doc["time"] = std::string(prefix.data(), prefix.size());
      doc["level"] = std::string(spdlog::level::to_string_view(msg.level).data(),
                                 spdlog::level::to_string_view(msg.level).size());
      doc["pid"] = static_cast<long>(spdlog::details::os::pid());
      doc["msg"] = util::redact(payload);  // JSON escapes control bytes itself
      line = util::json_text(doc, -1);
    } else {
      line = std::string(prefix.data(), prefix.size()) + text;
    }
    line += '\n';
    dest.append(line.data(), line.data() + line.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<SafeFormatter>(m_format); }

 private:
  LogFormat m_format;
  spdlog::pattern_formatter m_prefix;
};

}  // namespace

void setup_logging(LogFormat format, const std::string& level) {
  std::shared_ptr<spdlog::logger> logger = spdlog::get("raylaunch");
  if (!logger) {
    logger = std::make_shared<spdlog::logger>("raylaunch", std::make_shared<StderrSink>(k_max_backlog, k_flush_timeout));
    spdlog::register_logger(logger);
  }
  logger->set_formatter(std::make_unique<SafeFormatter>(format));
  logger->set_level(spdlog::level::from_str(level));
  spdlog::set_default_logger(logger);
}

StopOnSignal::StopOnSignal() {
  m_signal_fd = ::signalfd(-1, &util::stop_signals(), SFD_CLOEXEC);
  m_wake_fd = ::eventfd(0, EFD_CLOEXEC);
  if (m_signal_fd < 0 || m_wake_fd < 0) {
    throw std::system_error(errno, std::generic_category(), "signalfd/eventfd");
  }
  m_thread = std::thread([this] {
    pollfd fds[2] = {{m_signal_fd, POLLIN, 0}, {m_wake_fd, POLLIN, 0}};
    while (::poll(fds, 2, -1) >= 0 || errno == EINTR) {
      if ((fds[1].revents & POLLIN) != 0) {
        return;
      }
      signalfd_siginfo info{};
      if ((fds[0].revents & POLLIN) != 0 && ::read(m_signal_fd, &info, sizeof info) == sizeof info) {
        m_signal.store(static_cast<int>(info.ssi_signo));
        m_source.request_stop();
        return;
      }
    }
  });
}

StopOnSignal::~StopOnSignal() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(m_wake_fd, &one, sizeof one);
  m_thread.join();
  ::close(m_signal_fd);
  ::close(m_wake_fd);
}

int finish_wait(util::WaitEnd end, const std::string& reason, int stop_signal) {
  if (end != util::WaitEnd::ready) {
    std::fprintf(stderr, "raylaunch: error: %s\n", reason.c_str());
  }
  return util::exit_code_of(end, stop_signal);
}

}  // namespace launcher
