#include "health/probe_cache.hpp"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

namespace launcher::health {

ProbeCache::ProbeCache(boost::asio::io_context& io, Probe probe, std::chrono::milliseconds max_age)
    : m_io(io), m_probe(std::move(probe)), m_max_age(max_age),
      m_worker([this](std::stop_token stop) { worker_loop(stop); }) {}

ProbeCache::~ProbeCache() {
  m_worker.request_stop();
  m_wake.notify_all();
}

void ProbeCache::get(ProbeKind kind, Done done) {
  Slot& slot = m_slots[static_cast<int>(kind)];
  const auto now = std::chrono::steady_clock::now();
  if (slot.have && now - slot.at < m_max_age) {
    done(slot.answer);
    return;
  }
  slot.waiting.push_back(std::move(done));
  if (slot.in_flight) {
    return;
  }
  slot.in_flight = true;
  {
    const std::lock_guard lock(m_mutex);
    m_queue.push_back(kind);
  }
  m_wake.notify_one();
}

void ProbeCache::worker_loop(std::stop_token stop) {
  while (!stop.stop_requested()) {
    ProbeKind kind{};
    {
      std::unique_lock lock(m_mutex);
      if (!m_wake.wait(lock, stop, [this] { return !m_queue.empty(); })) {
        return;
      }
      kind = m_queue.front();
      m_queue.pop_front();
    }
    ProbeResult answer;
    try {
      answer = m_probe(kind);
    } catch (const std::exception& e) {  // a firewall: a probe that throws is an unhealthy answer
      answer = {false, std::string("internal error in the probe: ") + e.what() + " (please report it)"};
    } catch (...) {
      answer = {false, "internal error in the probe (please report it)"};
    }
    boost::asio::post(m_io, [this, kind, answer = std::move(answer)] {
      Slot& slot = m_slots[static_cast<int>(kind)];
      slot.answer = answer;
      slot.at = std::chrono::steady_clock::now();
      slot.have = true;
      slot.in_flight = false;
      std::vector<Done> waiting;
      waiting.swap(slot.waiting);
      for (Done& d : waiting) {
        try {
          d(slot.answer);
        } catch (const std::exception& e) {  // one caller's bug is not the event loop's
          spdlog::error("health endpoint: internal error answering a probe: {} (please report it)", e.what());
        }
      }
    });
  }
}

}  // namespace launcher::health
