#include "app/stop_on_signal.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cstdint>
#include <system_error>

#include "util/signals.hpp"

namespace launcher {

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

}  // namespace launcher
