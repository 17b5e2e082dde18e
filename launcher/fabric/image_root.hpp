#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/fd.hpp"
#include "util/result.hpp"

namespace launcher::fabric {

// Why a file under the image root could not be opened. The dynamic linker treats these
// differently (glibc elf/dl-load.c open_path): `missing` and `denied` move on to the next
// directory; the others end the search with an error.
enum class OpenError { missing, denied, loop, directory, not_regular, unreadable, budget };

struct OpenFailure {
  OpenError kind = OpenError::missing;
  std::string why;  // one line: "symlink loop", "is a directory", strerror
};

// A regular file opened read-only and non-blocking. Reads are by range and bounded by the
// caller: a library of 300 MB is never read whole.
class RootedFile {
 public:
  RootedFile(util::Fd fd, std::string path, std::string real_path, std::uint64_t size);

  const std::string& path() const { return m_path; }            // as asked for, under the root
  const std::string& real_path() const { return m_real_path; }  // after symlinks, under the root
  std::uint64_t size() const { return m_size; }

  // The bytes at [`offset`, `offset` + `len`), or fewer at the end of the file; nullopt on a
  // read error.
  std::optional<std::string> read_at(std::uint64_t offset, std::size_t len) const;
  // The same into `dst` (room for `len` bytes): the number of bytes read, nullopt on an error.
  std::optional<std::size_t> read_into(std::uint64_t offset, char* dst, std::size_t len) const;

 private:
  util::Fd m_fd;
  std::string m_path;
  std::string m_real_path;
  std::uint64_t m_size = 0;
};

// An image's files seen through a root directory, the way a process chrooted there would see
// them: absolute symlinks resolve inside the root, never on the machine running us. Every
// open counts against a budget, so a hostile tree cannot make a check open thousands of files.
// Each path is looked at once: an ImageRoot sees the tree as it was when it first looked.
class ImageRoot {
 public:
  static constexpr std::size_t k_default_budget = 2048;
  static constexpr int k_max_symlinks = 40;  // the kernel's MAXSYMLINKS

  explicit ImageRoot(std::string root, std::size_t open_budget = k_default_budget);

  const std::string& root() const { return m_root; }

  // Opens `abs_path` (absolute, inside the root). Never blocks, never follows a symlink out of
  // the root.
  util::Result<RootedFile, OpenFailure> open(std::string_view abs_path) const;
  // Names in directory `abs_dir`, sorted; none when it is absent or not a directory.
  std::vector<std::string> list(std::string_view abs_dir, std::size_t max_entries = 4096) const;

  std::size_t opens() const { return m_opens; }

 private:
  // The machine's path for `abs_path` with every symlink resolved inside the root, and the
  // in-root path it ends at.
  util::Result<std::pair<std::string, std::string>, OpenFailure> resolve(std::string_view abs_path) const;

  // One lstat (and readlink) per path for the life of this object: a search walks the same
  // directories for every library it looks for.
  struct Node {
    int error = 0;  // errno of lstat, 0 when it succeeded
    bool is_link = false, is_dir = false;
    std::string target;  // of a symlink; empty when unreadable
  };
  const Node& node(const std::string& host_path) const;

  std::string m_root;  // no trailing slash; "/" for the real root
  std::size_t m_budget;
  mutable std::size_t m_opens = 0;
  mutable std::unordered_map<std::string, Node> m_nodes;
};

// "/a/b/c.so" → "/a/b"; "c.so" → ".".
std::string parent_dir(std::string_view path);
// "/a/b/c.so" → "c.so".
std::string_view base_name(std::string_view path);

}  // namespace launcher::fabric
