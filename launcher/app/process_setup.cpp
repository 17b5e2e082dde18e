#include "app/process_setup.hpp"

#include <pthread.h>

#include "app/logging.hpp"
#include "gcs/gcs_channel.hpp"
#include "util/signals.hpp"

namespace launcher {

void block_handled_signals() { pthread_sigmask(SIG_BLOCK, &util::blocked_signals(), nullptr); }

void setup_process(const Config& config, SignalMode mode) {
  pthread_sigmask(mode == SignalMode::handled ? SIG_BLOCK : SIG_UNBLOCK, &util::blocked_signals(), nullptr);
  setup_logging(config.log_format, config.log_level);
  gcs::route_grpc_logs();
}

}  // namespace launcher
