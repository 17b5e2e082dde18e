#pragma once
// For unit tests: the default logger, for one test, into a string (the message only), and the
// one before it back when the test ends. What a user reads in the pod's log, as lines.
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace test_support {

class CapturedLog {
 public:
  CapturedLog() : m_previous(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(m_text);
    sink->set_pattern("%v");
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("captured", sink));
  }
  ~CapturedLog() { spdlog::set_default_logger(m_previous); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::size_t lines() const {
    const std::string text = m_text.str();
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }
  // The lines that contain `needle`, in order.
  std::vector<std::string> lines_with(const std::string& needle) const {
    std::vector<std::string> found;
    std::istringstream in(m_text.str());
    for (std::string line; std::getline(in, line);) {
      if (line.find(needle) != std::string::npos) {
        found.push_back(line);
      }
    }
    return found;
  }

 private:
  std::shared_ptr<spdlog::logger> m_previous;
  std::ostringstream m_text;
};

}  // namespace test_support
