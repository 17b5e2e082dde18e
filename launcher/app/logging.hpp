#pragma once
#include <string>

#include "config/config.hpp"

namespace launcher {

// spdlog on stderr: "2026-11-30T06:06:15.090 [info raylaunch 42] message", or one JSON object
// per line ({"time", "level", "pid", "msg"}, built with a JSON library: always valid). Every
// message passes util::redact() (no registered secret is ever printed) and control bytes are
// escaped, so one log call is one line. Lines are written by a thread of their own
// (StderrSink): logging never blocks, a stalled stderr drops lines (counted, then reported),
// and flush() waits at most a second. Safe to call again: the logger is reconfigured, not
// registered twice.
void setup_logging(LogFormat format, const std::string& level);

}  // namespace launcher
