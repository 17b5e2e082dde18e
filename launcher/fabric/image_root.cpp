#include "fabric/image_root.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "fabric/failure.hpp"

namespace launcher::fabric {

namespace {

Failure<OpenFailure> failure(OpenError kind, std::string why) { return {OpenFailure{kind, std::move(why)}}; }

// Pushes the components of `path` onto `todo`, last first, so that back() is the next one.
void push_components(std::vector<std::string>& todo, std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (end > start) {
      parts.emplace_back(path.substr(start, end - start));
    }
    start = end + 1;
  }
  todo.insert(todo.end(), parts.rbegin(), parts.rend());
}

std::string join_path(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    out += "/" + p;
  }
  return out.empty() ? "/" : out;
}

}  // namespace

std::string parent_dir(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) {
    return ".";
  }
  return slash == 0 ? "/" : std::string(path.substr(0, slash));
}

std::string_view base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

RootedFile::RootedFile(util::Fd fd, std::string path, std::string real_path, std::uint64_t size)
    : m_fd(std::move(fd)), m_path(std::move(path)), m_real_path(std::move(real_path)), m_size(size) {}

std::optional<std::size_t> RootedFile::read_into(std::uint64_t offset, char* dst, std::size_t len) const {
  if (offset >= m_size) {
    return 0;
  }
  len = static_cast<std::size_t>(std::min<std::uint64_t>(len, m_size - offset));
  std::size_t got = 0;
  while (got < len) {
    const ssize_t n = ::pread(m_fd.get(), dst + got, len - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return std::nullopt;
    }
    if (n == 0) {
      break;  // the file shrank under us: what is there is what we have
    }
    got += static_cast<std::size_t>(n);
  }
  return got;
}

std::optional<std::string> RootedFile::read_at(std::uint64_t offset, std::size_t len) const {
  std::string buf(static_cast<std::size_t>(std::min<std::uint64_t>(len, offset < m_size ? m_size - offset : 0)), '\0');
  const auto got = read_into(offset, buf.data(), buf.size());
  if (!got) {
    return std::nullopt;
  }
  buf.resize(*got);
  return buf;
}

ImageRoot::ImageRoot(std::string root, std::size_t open_budget) : m_root(std::move(root)), m_budget(open_budget) {
  while (m_root.size() > 1 && m_root.back() == '/') {
    m_root.pop_back();
  }
}

// Resolves like the kernel would with this root as "/": one lstat per component, symlinks
// (at most k_max_symlinks of them) re-rooted, ".." never above the root. The kernel cannot do
// this for us portably (openat2 RESOLVE_IN_ROOT may be filtered by a seccomp profile).
util::Result<std::pair<std::string, std::string>, OpenFailure> ImageRoot::resolve(std::string_view abs_path) const {
  const std::string prefix = m_root == "/" ? "" : m_root;
  std::vector<std::string> todo;
  push_components(todo, abs_path);
  std::vector<std::string> done;
  int hops = 0;
  while (!todo.empty()) {
    const std::string part = std::move(todo.back());
    todo.pop_back();
    if (part == ".") {
      continue;
    }
    if (part == "..") {
      if (!done.empty()) {
        done.pop_back();
      }
      continue;
    }
    done.push_back(part);
    const Node& n = node(prefix + join_path(done));
    if (n.error != 0) {
      if (n.error == ENOENT || n.error == ENOTDIR) {
        return failure(OpenError::missing, std::strerror(n.error));
      }
      return failure(n.error == EACCES ? OpenError::denied : OpenError::unreadable, std::strerror(n.error));
    }
    if (n.is_link) {
      if (++hops > k_max_symlinks) {
        return failure(OpenError::loop, "symlink loop (more than " + std::to_string(k_max_symlinks) + " links)");
      }
      if (n.target.empty()) {
        return failure(OpenError::unreadable, "unreadable symlink");
      }
      done.pop_back();
      if (n.target.front() == '/') {
        done.clear();
      }
      push_components(todo, n.target);
    } else if (!todo.empty() && !n.is_dir) {
      return failure(OpenError::missing, std::strerror(ENOTDIR));
    }
  }
  const std::string real = join_path(done);
  return std::pair<std::string, std::string>(prefix + real, real);
}

const ImageRoot::Node& ImageRoot::node(const std::string& host_path) const {
  auto [it, fresh] = m_nodes.try_emplace(host_path);
  if (!fresh) {
    return it->second;
  }
  Node& n = it->second;
  struct stat st {};
  if (::lstat(host_path.c_str(), &st) != 0) {
    n.error = errno;
    return n;
  }
  n.is_link = S_ISLNK(st.st_mode);
  n.is_dir = S_ISDIR(st.st_mode);
  if (n.is_link) {
    std::array<char, 4096> target{};
    const ssize_t len = ::readlink(host_path.c_str(), target.data(), target.size() - 1);
    if (len > 0) {
      n.target.assign(target.data(), static_cast<std::size_t>(len));
    }
  }
  return n;
}

util::Result<RootedFile, OpenFailure> ImageRoot::open(std::string_view abs_path) const {
  if (m_opens >= m_budget) {
    return failure(OpenError::budget, "more than " + std::to_string(m_budget) + " files looked at");
  }
  ++m_opens;
  auto where = resolve(abs_path);
  if (!where) {
    return Failure{where.error()};
  }
  // O_NONBLOCK: a FIFO planted where a library should be must not wait for a writer.
  util::Fd fd(::open(where->first.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW));
  if (!fd.valid()) {
    const int err = errno;
    if (err == ELOOP) {
      return failure(OpenError::loop, "symlink loop");
    }
    if (err == ENOENT || err == ENOTDIR) {
      return failure(OpenError::missing, std::strerror(err));
    }
    return failure(err == EACCES ? OpenError::denied : OpenError::unreadable, std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return failure(OpenError::unreadable, std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    return failure(OpenError::directory, "is a directory");
  }
  if (!S_ISREG(st.st_mode)) {
    return failure(OpenError::not_regular, "not a regular file");
  }
  return RootedFile(std::move(fd), std::string(abs_path), where->second, static_cast<std::uint64_t>(st.st_size));
}

std::vector<std::string> ImageRoot::list(std::string_view abs_dir, std::size_t max_entries) const {
  std::vector<std::string> names;
  auto where = resolve(abs_dir);
  if (!where) {
    return names;
  }
  DIR* dir = ::opendir(where->first.c_str());
  if (dir == nullptr) {
    return names;
  }
  while (names.size() < max_entries) {
    const dirent* entry = ::readdir(dir);
    if (entry == nullptr) {
      break;
    }
    const std::string_view name(entry->d_name);
    if (name != "." && name != "..") {
      names.emplace_back(name);
    }
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace launcher::fabric
