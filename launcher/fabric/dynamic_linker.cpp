#include "fabric/dynamic_linker.hpp"

#include <algorithm>

#include "util/parse.hpp"

namespace launcher::fabric {

namespace {

constexpr std::string_view k_cache_label = "ld.so.cache";

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

std::string platform(std::uint16_t machine) { return machine == k_em_aarch64 ? "aarch64" : "x86_64"; }

// DT_RPATH/DT_RUNPATH entries of `owner` as directories (glibc elf/dl-load.c
// decompose_rpath + _dl_dst_substitute): $ORIGIN is the directory `owner` was found in. $LIB
// becomes lib64, glibc's value on x86-64 and aarch64 (Debian builds may differ: inference).
// Empty and relative entries name the working directory: left out.
std::vector<std::string> expand(const std::vector<std::string>& entries, const LoadedObject& owner) {
  std::vector<std::string> dirs;
  for (std::string dir : entries) {
    replace_all(dir, "${ORIGIN}", parent_dir(owner.path));
    replace_all(dir, "$ORIGIN", parent_dir(owner.path));
    replace_all(dir, "${LIB}", "lib64");
    replace_all(dir, "$LIB", "lib64");
    replace_all(dir, "${PLATFORM}", platform(owner.elf.machine));
    replace_all(dir, "$PLATFORM", platform(owner.elf.machine));
    while (dir.size() > 1 && dir.back() == '/') {
      dir.pop_back();
    }
    if (!dir.empty() && dir.front() == '/') {
      dirs.push_back(std::move(dir));
    }
  }
  return dirs;
}

std::string join_dir(const std::string& dir, std::string_view name) {
  return (dir == "/" ? "" : dir) + "/" + std::string(name);
}

}  // namespace

struct DynamicLinker::Outcome {
  enum class Kind { found, next, missing, unusable, limit } kind = Kind::next;
  LoadedObject object;                 // found
  std::vector<SearchedPlace> searched;  // missing
  std::string path, why;                // unusable, limit
  std::vector<std::string> skipped;
};

const LoadedObject* LoadReport::object(std::string_view name) const {
  for (const LoadedObject& o : objects) {
    if (o.name == name || (!o.elf.soname.empty() && o.elf.soname == name)) {
      return &o;
    }
  }
  return nullptr;
}

std::uint16_t host_machine() {
#if defined(__aarch64__)
  return k_em_aarch64;
#else
  return k_em_x86_64;
#endif
}

std::vector<std::string> default_dirs(std::uint16_t machine) {
  const std::string triplet = machine == k_em_aarch64 ? "aarch64-linux-gnu" : "x86_64-linux-gnu";
  return {"/lib/" + triplet, "/usr/lib/" + triplet, "/lib64", "/usr/lib64", "/lib", "/usr/lib"};
}

std::vector<std::string> split_library_path(std::string_view value) {
  std::vector<std::string> dirs;
  for (std::string dir : util::split_list(value, ":;")) {
    while (dir.size() > 1 && dir.back() == '/') {
      dir.pop_back();
    }
    // "$ORIGIN" here would be the program's directory, unknown to a check: left out too.
    if (!dir.empty() && dir.front() == '/' && dir.find('$') == std::string::npos) {
      dirs.push_back(std::move(dir));
    }
  }
  return dirs;
}

DynamicLinker::DynamicLinker(const ImageRoot& root, LinkerEnv env, LinkerLimits limits)
    : m_root(root), m_env(std::move(env)), m_limits(limits) {
  if (m_env.machine == 0) {
    m_env.machine = host_machine();
  }
}

std::vector<SearchedPlace> DynamicLinker::places(const LoadReport& report, int requester,
                                                 const LoadedObject* caller) const {
  auto at = [&](int i) { return i >= 0 ? &report.objects[static_cast<std::size_t>(i)] : caller; };
  const LoadedObject* req = at(requester);
  std::vector<SearchedPlace> out;
  if (req == nullptr || !req->elf.has_runpath) {
    // The needing object's DT_RPATH, then its loader's, and on up to the caller.
    for (int i = requester;;) {
      const LoadedObject* l = at(i);
      if (l == nullptr) {
        break;
      }
      if (l->elf.has_rpath && !l->elf.has_runpath) {
        out.push_back({"RPATH of " + l->path, expand(l->elf.rpath, *l)});
      }
      if (i < 0) {
        break;
      }
      i = l->loader;
    }
  }
  if (!m_env.library_path.empty()) {
    out.push_back({"LD_LIBRARY_PATH", m_env.library_path});
  }
  if (req != nullptr && req->elf.has_runpath) {
    out.push_back({"RUNPATH of " + req->path, expand(req->elf.runpath, *req)});
  }
  if (req == nullptr || !req->elf.nodeflib) {
    out.push_back({std::string(k_cache_label) + (m_env.cache == nullptr ? " (" + m_env.cache_problem + ")" : ""), {}});
    out.push_back({"default directories", default_dirs(req != nullptr ? req->elf.machine : m_env.machine)});
  }
  return out;
}

DynamicLinker::Outcome DynamicLinker::search(std::string_view name, const LoadReport& report, int requester,
                                             const LoadedObject* caller) const {
  Outcome out;
  const LoadedObject* req = requester >= 0 ? &report.objects[static_cast<std::size_t>(requester)] : caller;
  const std::uint16_t machine = req != nullptr ? req->elf.machine : m_env.machine;

  // One candidate file: found, passed over (next), or the end of the search.
  auto try_file = [&](const std::string& path, const std::string& via) {
    auto file = m_root.open(path);
    if (!file) {
      const OpenFailure& f = file.error();
      if (f.kind == OpenError::missing || f.kind == OpenError::denied) {
        return false;  // glibc open_path: ENOENT and EACCES move on to the next directory
      }
      out.kind = f.kind == OpenError::budget ? Outcome::Kind::limit : Outcome::Kind::unusable;
      out.path = path;
      out.why = f.why;
      return true;
    }
    auto elf = read_elf_info(*file);
    if (!elf && elf.error().problem == ElfProblem::other_class) {
      out.skipped.push_back(path + ": " + elf.error().why);
      return false;
    }
    if (!elf) {
      out.kind = Outcome::Kind::unusable;
      out.path = path;
      out.why = elf.error().why;
      return true;
    }
    if (elf->machine != machine) {
      out.skipped.push_back(path + ": built for " + machine_name(elf->machine));
      return false;
    }
    out.kind = Outcome::Kind::found;
    out.object.name = std::string(name);
    out.object.path = path;
    out.object.real_path = file->real_path();
    out.object.via = via;
    out.object.elf = std::move(*elf);
    return true;
  };

  if (name.find('/') != std::string_view::npos) {
    const std::string path = name.front() == '/' ? std::string(name) : "/" + std::string(name);
    if (!try_file(path, "path")) {
      out.kind = Outcome::Kind::missing;
      out.searched = {{"path", {path}}};
    }
    return out;
  }
  std::vector<SearchedPlace> where = places(report, requester, caller);
  for (const SearchedPlace& place : where) {
    if (place.label == k_cache_label) {
      if (const auto path = m_env.cache->find(name, machine); path && try_file(*path, place.label)) {
        return out;
      }
      continue;
    }
    for (const std::string& dir : place.dirs) {
      if (try_file(join_dir(dir, name), place.label)) {
        return out;
      }
    }
  }
  out.kind = Outcome::Kind::missing;
  out.searched = std::move(where);
  return out;
}

// Records one search's result; false when the walk must stop.
bool DynamicLinker::record(LoadReport& report, Outcome&& o, std::string_view wanted, int loader) const {
  report.skipped.insert(report.skipped.end(), o.skipped.begin(), o.skipped.end());
  const std::string needed_by = loader >= 0 ? report.objects[static_cast<std::size_t>(loader)].path : "";
  switch (o.kind) {
    case Outcome::Kind::found:
      o.object.needed_by = needed_by;
      o.object.loader = loader;
      o.object.depth = loader >= 0 ? report.objects[static_cast<std::size_t>(loader)].depth + 1 : 0;
      report.objects.push_back(std::move(o.object));
      return true;
    case Outcome::Kind::missing:
    case Outcome::Kind::next:
      report.missing.push_back({std::string(wanted), needed_by, std::move(o.searched)});
      return true;
    case Outcome::Kind::unusable:
      report.unusable.push_back({std::string(wanted), o.path, needed_by, o.why});
      return true;
    case Outcome::Kind::limit:
      report.limit = o.why;
      return false;
  }
  return false;
}

LoadReport DynamicLinker::locate(std::string_view name, const LoadedObject* caller) const {
  LoadReport report;
  record(report, search(name, report, -1, caller), name, -1);
  return report;
}

LoadReport DynamicLinker::dlopen(std::string_view name, const LoadedObject* caller) const {
  LoadReport report;
  auto seen = [&](std::string_view n) {
    return report.object(n) != nullptr ||
           std::any_of(report.missing.begin(), report.missing.end(), [&](const auto& m) { return m.name == n; }) ||
           std::any_of(report.unusable.begin(), report.unusable.end(), [&](const auto& u) { return u.name == n; });
  };
  if (!record(report, search(name, report, -1, caller), name, -1)) {
    return report;
  }
  // Breadth first, as ld.so maps dependencies (elf/dl-deps.c): each name once.
  for (std::size_t i = 0; i < report.objects.size(); ++i) {
    const std::vector<std::string> needed = report.objects[i].elf.needed;
    for (const std::string& n : needed) {
      if (seen(n)) {
        continue;
      }
      if (report.objects[i].depth + 1 > m_limits.max_depth) {
        report.limit = "dependency chain deeper than " + std::to_string(m_limits.max_depth);
        return report;
      }
      if (report.objects.size() >= m_limits.max_objects) {
        report.limit = "more than " + std::to_string(m_limits.max_objects) + " libraries";
        return report;
      }
      if (!record(report, search(n, report, static_cast<int>(i), caller), n, static_cast<int>(i))) {
        return report;
      }
    }
  }
  return report;
}

}  // namespace launcher::fabric
