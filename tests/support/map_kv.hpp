#pragma once
// The GCS's internal KV as the gang fabric check uses it: a map behind a lock — the store's
// semantics, not its transport (the transport is tested on the real Ray by
// tests/cluster/scenarios/test_fabric_check*.py). For the round's unit tests and its benchmark.
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gang/fabric_round.hpp"

namespace launcher::testing {

class MapKv final : public gang::KvStore {
 public:
  util::Result<bool> put(const std::string& key, const std::string& value) override {
    const std::lock_guard lock(m_mutex);
    m_map[key] = value;
    return true;
  }
  util::Result<std::optional<std::string>> get(const std::string& key) override {
    const std::lock_guard lock(m_mutex);
    const auto it = m_map.find(key);
    return it == m_map.end() ? std::optional<std::string>{} : std::optional<std::string>{it->second};
  }
  util::Result<std::vector<std::string>> keys(const std::string& prefix) override {
    const std::lock_guard lock(m_mutex);
    std::vector<std::string> out;
    for (const auto& [k, v] : m_map) {
      if (k.rfind(prefix, 0) == 0) {
        out.push_back(k);
      }
    }
    return out;
  }

 private:
  std::mutex m_mutex;
  std::map<std::string, std::string> m_map;
};

}  // namespace launcher::testing
