#include "util/redact.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <vector>

namespace launcher::util {

namespace {

// Shorter secrets are replaced only as a whole word: "abc" in "abc" or "pw=abc," but not in
// "abcde", so a 3-byte password masks itself without masking every word that contains it.
constexpr std::size_t k_substring_min = 4;

// A registered secret, and how many registrations hold it.
struct Secret {
  std::string text;
  int holders = 1;
};

std::mutex g_mutex;
std::vector<Secret>& secrets() {
  static std::vector<Secret> s;
  return s;
}

bool is_word_byte(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; }

bool whole_word(const std::string& text, std::size_t at, std::size_t len) {
  return (at == 0 || !is_word_byte(text[at - 1])) && (at + len >= text.size() || !is_word_byte(text[at + len]));
}

}  // namespace

void add_secret(std::string secret) {
  if (secret.empty()) {
    return;
  }
  const std::lock_guard lock(g_mutex);
  for (Secret& s : secrets()) {
    if (s.text == secret) {
      ++s.holders;
      return;
    }
  }
  // Longest first: a secret that contains a shorter one is replaced whole, not half-masked.
  const auto at = std::find_if(secrets().begin(), secrets().end(),
                               [&](const Secret& s) { return s.text.size() < secret.size(); });
  secrets().insert(at, Secret{std::move(secret)});
}

void remove_secret(const std::string& secret) {
  const std::lock_guard lock(g_mutex);
  const auto it =
      std::find_if(secrets().begin(), secrets().end(), [&](const Secret& s) { return s.text == secret; });
  if (it != secrets().end() && --it->holders == 0) {
    secrets().erase(it);
  }
}

std::size_t longest_secret() {
  const std::lock_guard lock(g_mutex);
  std::size_t longest = 0;
  for (const Secret& s : secrets()) {
    longest = std::max(longest, s.text.size());
  }
  return longest;
}

std::string redact(std::string_view text) {
  std::string out(text);
  const std::lock_guard lock(g_mutex);
  for (const Secret& secret : secrets()) {
    const std::string& s = secret.text;
    for (auto at = out.find(s); at != std::string::npos;) {
      if (s.size() >= k_substring_min || whole_word(out, at, s.size())) {
        out.replace(at, s.size(), "***");
        at = out.find(s, at + 3);
      } else {
        at = out.find(s, at + 1);
      }
    }
  }
  return out;
}

}  // namespace launcher::util
