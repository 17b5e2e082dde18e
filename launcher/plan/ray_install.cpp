#include "plan/ray_install.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <string_view>
#include <vector>

#include "util/host_fs.hpp"
#include "util/parse.hpp"

namespace launcher {

namespace {

constexpr std::size_t k_max_metadata = 1 << 20;  // METADATA holds the README too: ~20 KB for Ray

bool is_executable_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      names.emplace_back(e->d_name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The pieces of `text` between `sep`s, empty ones included.
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) {
      return out;
    }
    start = end + 1;
  }
}

std::string parent(const std::string& p) {
  const auto slash = p.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : p.substr(0, slash);
}

// What execvp would run for `ray`: a name with '/' as given, else the first executable in PATH.
std::optional<std::string> locate(const std::string& ray, const std::string& path) {
  if (ray.find('/') != std::string::npos) {
    return is_executable_file(ray) ? std::optional(ray) : std::nullopt;
  }
  for (const std::string_view dir : split(path, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + ray;
    if (is_executable_file(candidate)) {
      return candidate;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<RayInstall> parse_ray_metadata(const std::string& text, const std::string& where) {
  for (std::string_view line : split(text, '\n')) {
    if (line.empty() || line == "\r") {
      break;  // the headers end at the first empty line; the description follows
    }
    if (!line.starts_with("Version:")) {
      continue;
    }
    const std::string version(util::trim(line.substr(8)));
    RayInstall r{version, where};
    const char* p = version.data();
    const char* end = version.data() + version.size();
    auto [after_major, e1] = std::from_chars(p, end, r.major);
    if (e1 != std::errc() || after_major == end || *after_major != '.') {
      return std::nullopt;
    }
    auto [after_minor, e2] = std::from_chars(after_major + 1, end, r.minor);
    if (e2 != std::errc()) {
      return std::nullopt;
    }
    return r;
  }
  return std::nullopt;
}

std::optional<RayInstall> find_ray_install(const std::string& ray, const std::string& path) {
  const auto script = locate(ray, path);
  if (!script) {
    return std::nullopt;
  }
  const std::string lib = parent(parent(*script)) + "/lib";
  for (const std::string& python : entries(lib)) {
    if (!python.starts_with("python3")) {
      continue;
    }
    for (const char* packages : {"/site-packages", "/dist-packages"}) {
      const std::string dir = lib + "/" + python + packages;
      for (const std::string& name : entries(dir)) {
        if (!name.starts_with("ray-") || !name.ends_with(".dist-info")) {
          continue;
        }
        const std::string metadata = dir + "/" + name + "/METADATA";
        if (const auto text = util::read_small_file(metadata, k_max_metadata)) {
          if (auto found = parse_ray_metadata(*text, metadata)) {
            return found;
          }
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace launcher
