#include "app/stderr_sink.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <spdlog/pattern_formatter.h>
#include <string>
#include <thread>

namespace launcher {

struct StderrSink::Queue {
  std::mutex mutex;
  std::condition_variable wake;     // the writer: lines, or closing
  std::condition_variable drained;  // flush(): the queue is empty and nothing is being written
  std::deque<std::string> lines;
  std::size_t bytes = 0;
  std::size_t max_bytes = 0;
  bool writing = false;
  bool closing = false;
  bool reader_gone = false;
  long dropped = 0;
  long dropped_unreported = 0;
};

namespace {

// Blocking writes of everything, on the writer thread only; false when the reader is gone.
// stderr may be non-blocking without raylaunch asking: O_NONBLOCK belongs to the open file, which
// the command shares (a Python or Node program that sets it on its fd 2 sets it on ours). A full
// pipe then answers EAGAIN: that is a slow reader, not a gone one, so wait until it can take more.
bool write_all(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd out{STDERR_FILENO, POLLOUT, 0};
      while (::poll(&out, 1, -1) < 0 && errno == EINTR) {
      }
      continue;  // writable, or an error the next write reports (EPIPE when the reader went away)
    }
    if (n <= 0) {
      return false;  // EPIPE (SIGPIPE is blocked), EBADF: nobody reads stderr any more
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void writer_loop(const std::shared_ptr<StderrSink::Queue>& q) {
  std::unique_lock lock(q->mutex);
  for (;;) {
    q->wake.wait(lock, [&] { return !q->lines.empty() || q->closing; });
    if (q->lines.empty()) {
      return;
    }
    std::string batch;
    try {
      while (!q->lines.empty()) {
        batch += q->lines.front();
        q->lines.pop_front();
      }
    } catch (const std::exception&) {  // out of memory: drop what is queued, never end PID 1
      q->dropped += static_cast<long>(q->lines.size());
      q->lines.clear();
      q->bytes = 0;
      continue;
    }
    q->writing = true;
    lock.unlock();
    const bool written = !q->reader_gone && write_all(batch);
    lock.lock();
    q->bytes -= batch.size();  // counted until written: the bound covers the write in flight
    q->reader_gone = !written;
    q->writing = false;
    q->drained.notify_all();
  }
}

}  // namespace

StderrSink::StderrSink(std::size_t max_bytes, std::chrono::milliseconds flush_timeout)
    : m_queue(std::make_shared<Queue>()),
      m_formatter(std::make_unique<spdlog::pattern_formatter>()),
      m_flush_timeout(flush_timeout) {
  m_queue->max_bytes = max_bytes;
  // Detached: at exit, a writer blocked on a stalled pipe must not hold the process up. It owns
  // its share of the queue, so it never outlives what it reads.
  std::thread([q = m_queue] { writer_loop(q); }).detach();
}

StderrSink::~StderrSink() {
  const std::lock_guard lock(m_queue->mutex);
  m_queue->closing = true;
  m_queue->wake.notify_all();
}

void StderrSink::log(const spdlog::details::log_msg& msg) {
  spdlog::memory_buf_t formatted;
  std::string notice;
  {
    const std::lock_guard lock(m_format_mutex);
    m_formatter->format(msg, formatted);
    long unreported = 0;
    {
      const std::lock_guard q(m_queue->mutex);
      unreported = m_queue->dropped_unreported;
    }
    if (unreported > 0) {
      const std::string text = std::to_string(unreported) + " log lines were dropped: stderr was not read fast enough";
      spdlog::details::log_msg warn(msg.logger_name, spdlog::level::warn, text);
      spdlog::memory_buf_t buf;
      m_formatter->format(warn, buf);
      notice.assign(buf.data(), buf.size());
    }
  }
  const std::lock_guard lock(m_queue->mutex);
  Queue& q = *m_queue;
  if (q.reader_gone || q.bytes + notice.size() + formatted.size() > q.max_bytes) {
    ++q.dropped;
    ++q.dropped_unreported;
    return;
  }
  if (!notice.empty()) {
    q.lines.push_back(std::move(notice));
    q.bytes += q.lines.back().size();
    q.dropped_unreported = 0;
  }
  q.lines.emplace_back(formatted.data(), formatted.size());
  q.bytes += formatted.size();
  q.wake.notify_one();
}

void StderrSink::flush() {
  std::unique_lock lock(m_queue->mutex);
  m_queue->drained.wait_for(lock, m_flush_timeout,
                            [&] { return (m_queue->lines.empty() && !m_queue->writing) || m_queue->reader_gone; });
}

void StderrSink::set_pattern(const std::string& pattern) {
  set_formatter(std::make_unique<spdlog::pattern_formatter>(pattern));
}

void StderrSink::set_formatter(std::unique_ptr<spdlog::formatter> formatter) {
  const std::lock_guard lock(m_format_mutex);
  m_formatter = std::move(formatter);
}

long StderrSink::dropped() const {
  const std::lock_guard lock(m_queue->mutex);
  return m_queue->dropped;
}

}  // namespace launcher
