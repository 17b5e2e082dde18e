#include "plan/ray_install.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include "util/host_fs.hpp"
#include "util/parse.hpp"

namespace launcher {

namespace fs = std::filesystem;

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


constexpr std::size_t k_max_cfg_bytes = 16 * 1024;  // pyvenv.cfg is a few lines

bool digit(char c) { return c >= '0' && c <= '9'; }

// The length of "<digits>(.<digits>){dots}" at the start of `s`, 0 when it is not there.
std::size_t dotted_number(std::string_view s, int dots) {
  std::size_t i = 0;
  for (int part = 0; part <= dots; ++part) {
    if (part > 0) {
      if (i >= s.size() || s[i] != '.') {
        return 0;
      }
      ++i;
    }
    const std::size_t start = i;
    while (i < s.size() && digit(s[i])) {
      ++i;
    }
    if (i == start) {
      return 0;
    }
  }
  return i;
}

// "3.11.2" from "version = 3.11.2" or "version_info = 3.11.2.final.0" (major.minor.patch only).
std::string pyvenv_version(const fs::path& cfg) {
  std::ifstream in(cfg);
  std::string text(k_max_cfg_bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    const std::string_view line = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      continue;
    }
    const std::string_view key = util::trim(line.substr(0, eq));
    const std::string_view value = util::trim(line.substr(eq + 1));
    if (key != "version" && key != "version_info") {
      continue;
    }
    const std::size_t n = dotted_number(value, 2);
    if (n > 0 && (n == value.size() || value[n] == '.')) {
      return std::string(value.substr(0, n));
    }
  }
  return "";
}

// "3.11" from "python3.11" (the name of the interpreter or its lib directory).
std::string major_minor_of(std::string_view name) {
  if (!name.starts_with("python")) {
    return "";
  }
  name.remove_prefix(6);
  return dotted_number(name, 1) == name.size() ? std::string(name) : "";
}

// The one `ray-<version>.dist-info` in `dir` (not ray_cpp-…, not two of them).
std::string ray_dist_info(const fs::path& dir, std::string& version) {
  constexpr std::string_view prefix = "ray-";
  constexpr std::string_view suffix = ".dist-info";
  std::vector<std::pair<std::string, std::string>> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) {
      continue;
    }
    const std::string v = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (dotted_number(v, 2) > 0) {  // 2.60.0, 2.60.0rc1, 3.0.0.dev0
      found.emplace_back(v, it->path().string());
    }
  }
  if (found.size() != 1) {
    return "";
  }
  version = found.front().first;
  return found.front().second;
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
      std::string version;
      const std::string dist = ray_dist_info(dir, version);
      if (dist.empty()) {
        continue;
      }
      const std::string metadata = dist + "/METADATA";
      if (const auto text = util::read_small_file(metadata, k_max_metadata)) {
        if (auto found = parse_ray_metadata(*text, metadata)) {
          return found;
        }
      }
    }
  }
  return std::nullopt;
}

InstalledRay read_installed_ray(const std::string& interpreter) {
  InstalledRay out;
  if (interpreter.empty() || interpreter.front() != '/') {
    out.source = "the ray script names no absolute #! interpreter";
    return out;
  }
  const fs::path interp(interpreter);
  if (interp.filename() == "env") {
    out.source = "the ray script's #! line goes through /usr/bin/env (the interpreter is found at run time)";
    return out;
  }
  std::error_code ec;
  // A virtualenv: <venv>/bin/python3 with <venv>/pyvenv.cfg (python3 is a symlink out of the venv).
  const fs::path prefix = interp.parent_path().parent_path();
  std::vector<std::string> sources;
  std::string major_minor;
  if (fs::is_regular_file(prefix / "pyvenv.cfg", ec)) {
    out.python = pyvenv_version(prefix / "pyvenv.cfg");
    if (!out.python.empty()) {
      sources.push_back((prefix / "pyvenv.cfg").string());
    }
  }
  // major.minor from the real interpreter's name, for site-packages and where no patch is known.
  const fs::path real = fs::canonical(interp, ec);
  if (!ec) {
    major_minor = major_minor_of(real.filename().string());
  }
  if (major_minor.empty() && out.python.size() >= 3) {
    major_minor = out.python.substr(0, out.python.rfind('.'));
  }
  if (out.python.empty() && !major_minor.empty()) {
    out.python = major_minor;
    sources.push_back(real.string() + " (no pyvenv.cfg: patch level not read)");
  }
  if (!major_minor.empty()) {
    const std::string lib = "python" + major_minor;
    for (const fs::path& dir : {prefix / "lib" / lib / "site-packages", prefix / "local" / "lib" / lib / "dist-packages",
                                prefix / "lib" / lib / "dist-packages", prefix / "lib" / "python3" / "dist-packages"}) {
      const std::string dist = ray_dist_info(dir, out.ray);
      if (!dist.empty()) {
        sources.insert(sources.begin(), dist);
        break;
      }
    }
  }
  if (out.ray.empty()) {
    sources.push_back("no single ray-*.dist-info in " + prefix.string() + "/lib/python" +
                      (major_minor.empty() ? std::string("?") : major_minor) + "/site-packages");
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    out.source += (i == 0 ? "" : ", ") + sources[i];
  }
  return out;
}

}  // namespace launcher
