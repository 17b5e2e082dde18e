#include "util/redact.hpp"

#include <mutex>
#include <vector>

namespace launcher::util {

namespace {

std::mutex g_mutex;
std::vector<std::string>& secrets() {
  static std::vector<std::string> s;
  return s;
}

}  // namespace

void add_secret(std::string secret) {
  if (secret.size() < 4) {
    return;  // too short to search for without mangling ordinary text; never logged anyway
  }
  const std::lock_guard lock(g_mutex);
  secrets().push_back(std::move(secret));
}

std::string redact(std::string_view text) {
  std::string out(text);
  const std::lock_guard lock(g_mutex);
  for (const std::string& s : secrets()) {
    for (auto at = out.find(s); at != std::string::npos; at = out.find(s, at + 3)) {
      out.replace(at, s.size(), "***");
    }
  }
  return out;
}

}  // namespace launcher::util
