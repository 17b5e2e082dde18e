#include "supervisor/restart_budget.hpp"

#include <csignal>

#include "util/exit_codes.hpp"
#include "util/parse.hpp"

namespace launcher::supervisor {

bool retryable_exit(int code) {
  using namespace launcher::exit_code;
  switch (code) {
    case ok:
    case usage:
    case unavailable:
    case software:
    case os_error:
    case io_error:
    case temp_fail:
    case no_permission:
    case config:
    case not_executable:
    case not_found:
      return false;
    default:
      return code != killed_by(SIGTERM) && code != killed_by(SIGINT);
  }
}

bool RestartBudget::take(std::chrono::milliseconds at) {
  if (m_max <= 0) {
    return false;
  }
  while (!m_recent.empty() && at - m_recent.front() >= m_window) {
    m_recent.pop_front();
  }
  if (static_cast<int>(m_recent.size()) >= m_max) {
    return false;
  }
  m_recent.push_back(at);
  ++m_used;
  return true;
}

std::string RestartBudget::describe() const {
  return std::to_string(m_max) + " within " + util::format_duration(m_window);
}

}  // namespace launcher::supervisor
