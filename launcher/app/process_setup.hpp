#pragma once
#include <csignal>

#include "config/config.hpp"

namespace launcher {

// How a command treats signals (the one list: util/signals.hpp).
enum class SignalMode {
  defaults,  // the kernel's defaults: a probe or `plan` simply dies on Ctrl-C
  handled,   // all but the synchronous faults blocked in every thread, read synchronously
             // (signalfd) by the command itself: `run` forwards them, `wait` stops its wait and
             // exits 128+N; SIGPIPE blocked, so a closed stderr or stdout is EPIPE, never death
};

// Blocks util::blocked_signals(): the first thing main does, before parsing a single argument. As
// PID 1 a signal at its default disposition is dropped, so a SIGTERM arriving in the
// milliseconds before setup_process would be lost and the pod would run out its grace period.
// Blocked, it stays pending: `run` reads it from its signalfd, the others get it on unblock.
void block_handled_signals();

// The process set-up every command makes once, first, before any thread exists (gRPC and
// c-ares threads inherit the signal mask of the thread that creates them): logging, gRPC's
// own log lines routed through it, and the signal mask (a `defaults` command unblocks what
// block_handled_signals blocked; a pending signal then acts at once). Calling it again only
// reconfigures.
void setup_process(const Config& config, SignalMode mode);

}  // namespace launcher
