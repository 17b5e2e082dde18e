#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launcher::util {

// Reads of the host's /sys, /dev, /proc and /etc through a root prefix, so tests point the
// same code at fake trees. Knows nothing of Ray or Kubernetes. Absent or unreadable files are
// `nullopt`/empty: callers decide whether that matters.
class HostFs {
 public:
  explicit HostFs(std::string root);

  const std::string& root() const { return m_root; }
  std::string path(std::string_view abs) const;  // root + abs ("/" root: abs unchanged)

  std::optional<std::string> read(std::string_view abs) const;       // whole file
  std::optional<std::string> read_line(std::string_view abs) const;  // first line, trimmed
  std::optional<std::string> link_target(std::string_view abs) const;
  bool exists(std::string_view abs) const;
  bool is_dir(std::string_view abs) const;
  std::vector<std::string> list(std::string_view abs_dir) const;  // names, sorted; none if absent

 private:
  std::string m_root;
};

}  // namespace launcher::util
