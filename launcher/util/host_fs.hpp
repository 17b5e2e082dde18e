#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launcher::util {

// Reads of the host's /sys, /dev, /proc and /etc through a root prefix, so tests point the
// same code at fake trees. Knows nothing of Ray or Kubernetes. Absent or unreadable files are
// `nullopt`/empty: callers decide whether that matters. Reads never block and never grow
// without bound: only regular files are read (a FIFO, /dev/zero or a socket planted where a
// sysfs file should be reads as absent), and a file over `k_max_file_bytes` reads as absent.
class HostFs {
 public:
  static constexpr std::size_t k_max_file_bytes = 1 << 20;

  explicit HostFs(std::string root);

  std::string path(std::string_view abs) const;  // root + abs ("/" root: abs unchanged)

  std::optional<std::string> read(std::string_view abs) const;       // whole file
  std::optional<std::string> read_line(std::string_view abs) const;  // first line, trimmed
  std::optional<std::string> link_target(std::string_view abs) const;
  bool is_dir(std::string_view abs) const;
  std::vector<std::string> list(std::string_view abs_dir) const;  // names, sorted; none if absent

 private:
  std::string m_root;
};

// Reads a regular file of at most `max_bytes` without blocking (see HostFs); nullopt when it
// is absent, not a regular file, unreadable or too large. `why` (optional) says which.
std::optional<std::string> read_small_file(const std::string& path, std::size_t max_bytes, std::string* why = nullptr);

// The same, but a longer file is no error: its first `max_bytes` come back (what a reader of a
// file's first line needs; the rest is never read).
std::optional<std::string> read_file_head(const std::string& path, std::size_t max_bytes, std::string* why = nullptr);

}  // namespace launcher::util
