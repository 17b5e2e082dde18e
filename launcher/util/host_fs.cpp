#include "util/host_fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "util/fd.hpp"
#include "util/parse.hpp"

namespace launcher::util {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t k_max_dir_entries = 65536;

void say(std::string* why, std::string text) {
  if (why != nullptr) {
    *why = std::move(text);
  }
}

}  // namespace

namespace {

// A regular file's first `max_bytes` (all of it when shorter); with `whole`, a longer file is
// refused instead.
std::optional<std::string> read_regular(const std::string& path, std::size_t max_bytes, std::string* why, bool whole) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer for ever.
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd.valid()) {
    say(why, std::strerror(errno));
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    say(why, std::strerror(errno));
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    say(why, "is a directory");
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    say(why, "not a regular file");
    return std::nullopt;
  }
  // procfs and sysfs report size 0 or 4096 whatever they hold: read until EOF, up to the cap.
  std::string text;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      say(why, std::strerror(errno));
      return std::nullopt;
    }
    if (n == 0) {
      break;
    }
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
      if (!whole) {
        text.append(buf, max_bytes - text.size());
        return text;
      }
      say(why, "larger than " + std::to_string(max_bytes) + " bytes");
      return std::nullopt;
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

}  // namespace

std::optional<std::string> read_small_file(const std::string& path, std::size_t max_bytes, std::string* why) {
  return read_regular(path, max_bytes, why, true);
}

std::optional<std::string> read_file_head(const std::string& path, std::size_t max_bytes, std::string* why) {
  return read_regular(path, max_bytes, why, false);
}

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
  return read_small_file(path(abs), k_max_file_bytes);
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

bool HostFs::is_dir(std::string_view abs) const {
  std::error_code ec;
  return fs::is_directory(path(abs), ec);
}

std::vector<std::string> HostFs::list(std::string_view abs_dir) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(path(abs_dir), ec), end; !ec && it != end && names.size() < k_max_dir_entries;
       it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace launcher::util
