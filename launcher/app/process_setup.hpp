#pragma once
#include <csignal>

#include "config/config.hpp"

namespace launcher {

// How a command treats the termination signals (SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1,
// SIGUSR2) and SIGCHLD.
enum class SignalMode {
  defaults,  // the kernel's defaults: a probe or `plan` simply dies on Ctrl-C
  handled,   // blocked in every thread, read synchronously (signalfd) by the command itself:
             // `run` forwards them, `wait` stops its wait and exits 128+N
};

// The signals a `handled` command reads itself.
const sigset_t& handled_signals();

// The process set-up every command makes once, first, before any thread exists (gRPC and
// c-ares threads inherit the signal mask of the thread that creates them): logging, gRPC's
// own log lines routed through it, and the signal mask. Calling it again only reconfigures.
void setup_process(const Config& config, SignalMode mode);

}  // namespace launcher
