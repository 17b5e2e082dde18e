#pragma once
#include <sys/types.h>

#include <ctime>
#include <mutex>
#include <string>

#include "gcs/auth_token.hpp"

namespace launcher::gcs {

// The token a call sends, following its file. Kubernetes rotates projected service-account tokens
// (the kubelet refreshes them at 80 % of their lifetime; Ray's own are 10-minute tokens,
// k8s_constants.h kRaySATokenDefaultTTLSeconds) by swapping the volume's ..data symlink, and Ray
// 2.55+ re-reads its token as it nears expiry. A wait of 30 minutes or a resident probe that
// loaded its token once would send an expired one; this re-reads the file whenever it changed.
// Thread-safe: copies of one Credentials (the barrier, the resident probe thread) share it.
class LiveToken {
 public:
  explicit LiveToken(AuthToken token);

  // The value to send now. For a token read from a file, one stat() per call: when the file is
  // another file than the one read (device, inode, size or mtime differ; stat follows symlinks),
  // it is read again and, if usable, replaces the token (registered as a secret first). A file
  // that is missing or unusable for a moment (mid-rotation) keeps the token last read.
  std::string value();

  // How many times the file was read again (tests, logs).
  int reloads() const;

 private:
  struct Stamp {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = -1;
    timespec mtime{};
    bool operator==(const Stamp& o) const;
  };
  static Stamp stamp_of(const std::string& path);

  mutable std::mutex m_mutex;
  AuthToken m_token;
  Stamp m_stamp;
  int m_reloads = 0;
};

}  // namespace launcher::gcs
