#include "util/host_fs.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "util/parse.hpp"

namespace launcher::util {

namespace fs = std::filesystem;

HostFs::HostFs(std::string root) : m_root(std::move(root)) {
  while (m_root.size() > 1 && m_root.back() == '/') {
    m_root.pop_back();
  }
}

std::string HostFs::path(std::string_view abs) const {
  if (m_root == "/") {
    return std::string(abs);
  }
  return m_root + std::string(abs);
}

std::optional<std::string> HostFs::read(std::string_view abs) const {
  std::ifstream in(path(abs), std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) {
    return std::nullopt;
  }
  return out.str();
}

std::optional<std::string> HostFs::read_line(std::string_view abs) const {
  auto text = read(abs);
  if (!text) {
    return std::nullopt;
  }
  std::string_view view(*text);
  view = view.substr(0, view.find('\n'));
  return std::string(trim(view));
}

std::optional<std::string> HostFs::link_target(std::string_view abs) const {
  std::error_code ec;
  const fs::path target = fs::read_symlink(path(abs), ec);
  if (ec) {
    return std::nullopt;
  }
  return target.string();
}

bool HostFs::exists(std::string_view abs) const {
  std::error_code ec;
  return fs::exists(path(abs), ec);
}

bool HostFs::is_dir(std::string_view abs) const {
  std::error_code ec;
  return fs::is_directory(path(abs), ec);
}

std::vector<std::string> HostFs::list(std::string_view abs_dir) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(path(abs_dir), ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace launcher::util
