#pragma once
#include <string>

#include "config.hpp"

namespace launcher {

// spdlog on stderr: "[info raylaunch 42] message" or one JSON object per line.
// `level`: debug, info, warn, error. Never log secrets (tokens, passwords): callers redact.
void setup_logging(LogFormat format, const std::string& level);

}  // namespace launcher
