#include "gcs/live_token.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include "util/redact.hpp"

namespace launcher::gcs {

bool LiveToken::Stamp::operator==(const Stamp& o) const {
  return dev == o.dev && ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
         mtime.tv_nsec == o.mtime.tv_nsec;
}

LiveToken::Stamp LiveToken::stamp_of(const std::string& path) {
  Stamp s;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    s = {st.st_dev, st.st_ino, st.st_size, st.st_mtim};
  }
  return s;
}

// The stamp is taken before the read: a change between the two shows as a change next time.
LiveToken::LiveToken(AuthToken token) : m_token(std::move(token)) {
  if (!m_token.path.empty()) {
    m_stamp = stamp_of(m_token.path);
  }
}

std::string LiveToken::value() {
  const std::lock_guard lock(m_mutex);
  if (m_token.path.empty()) {
    return m_token.value;
  }
  const Stamp now = stamp_of(m_token.path);
  if (now == m_stamp || now.size < 0) {
    return m_token.value;  // unchanged, or gone for a moment: keep what we have
  }
  auto fresh = read_token_file(m_token.path, m_token.source);
  if (!fresh) {
    spdlog::debug("the token file changed but cannot be used yet ({}); still sending the token read before",
                  fresh.error());
    return m_token.value;
  }
  m_stamp = now;
  if (fresh.value() != m_token.value) {
    util::add_secret(fresh.value());
    m_token.value = std::move(fresh).value();
    ++m_reloads;
    spdlog::info("Ray's auth token changed in {}: sending the new one", m_token.source);
  }
  return m_token.value;
}

int LiveToken::reloads() const {
  const std::lock_guard lock(m_mutex);
  return m_reloads;
}

}  // namespace launcher::gcs
