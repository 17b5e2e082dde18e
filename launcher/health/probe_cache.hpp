#pragma once
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "util/platform.hpp"

namespace launcher::health {

// Runs the blocking probe RPCs (a GCS or raylet call on a channel kept open) on a thread of its
// own and hands each answer back on the event loop, so an HTTP probe never blocks the loop. An
// answer younger than `max_age` is reused (at most one RPC per kind per second, whatever the
// number of probers); callers that arrive while a probe is in flight wait for that one. A probe
// that throws answers unhealthy with the reason; a `done` that throws is logged and skipped.
class ProbeCache {
 public:
  using Probe = std::function<ProbeResult(ProbeKind)>;
  using Done = std::function<void(const ProbeResult&)>;

  ProbeCache(boost::asio::io_context& io, Probe probe, std::chrono::milliseconds max_age);
  ~ProbeCache();
  ProbeCache(const ProbeCache&) = delete;
  ProbeCache& operator=(const ProbeCache&) = delete;

  // On the event loop: `done` gets a fresh enough answer, now or once the probe returns.
  void get(ProbeKind kind, Done done);

 private:
  struct Slot {
    ProbeResult answer;
    std::chrono::steady_clock::time_point at{};
    bool have = false;
    bool in_flight = false;
    std::vector<Done> waiting;
  };
  void worker_loop(std::stop_token stop);

  boost::asio::io_context& m_io;
  Probe m_probe;
  std::chrono::milliseconds m_max_age;
  Slot m_slots[2];
  std::mutex m_mutex;  // guards m_queue only: the slots live on the event loop
  std::condition_variable_any m_wake;
  std::deque<ProbeKind> m_queue;
  std::jthread m_worker;
};

}  // namespace launcher::health
