#include "logging.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace launcher {

void setup_logging(LogFormat format, const std::string& level) {
  auto logger = spdlog::stderr_logger_mt("raylaunch");
  if (format == LogFormat::json) {
    // %v is the message; messages are plain text without quotes or backslashes by convention,
    // and the few that might carry them (paths, argv) are escaped by the caller.
    logger->set_pattern(R"({"time":"%Y-%m-%dT%H:%M:%S.%e%z","level":"%l","pid":%P,"msg":"%v"})");
  } else {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e [%l raylaunch %P] %v");
  }
  logger->set_level(spdlog::level::from_str(level));
  spdlog::set_default_logger(logger);
}

}  // namespace launcher
