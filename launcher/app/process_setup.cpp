#include "app/process_setup.hpp"

#include <pthread.h>

#include "app/logging.hpp"
#include "gcs/gcs_channel.hpp"

namespace launcher {

const sigset_t& handled_signals() {
  static const sigset_t set = [] {
    sigset_t s;
    sigemptyset(&s);
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD}) {
      sigaddset(&s, sig);
    }
    return s;
  }();
  return set;
}

void block_handled_signals() { pthread_sigmask(SIG_BLOCK, &handled_signals(), nullptr); }

void setup_process(const Config& config, SignalMode mode) {
  pthread_sigmask(mode == SignalMode::handled ? SIG_BLOCK : SIG_UNBLOCK, &handled_signals(), nullptr);
  setup_logging(config.log_format, config.log_level);
  gcs::route_grpc_logs();
}

}  // namespace launcher
