// Compares the symbol versions the objects of a load need with those their providers define.
#include "fabric/version_check.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "fabric/elf_versions.hpp"

namespace launcher::fabric {

namespace {

// "FABRIC_1.7" → "FABRIC_": versions of one family differ after their last '_'.
std::string family(const std::string& version) {
  const std::size_t underscore = version.rfind('_');
  return underscore == std::string::npos ? version : version.substr(0, underscore + 1);
}

std::string newest_of_family(const ElfVersions& v, const std::string& wanted) {
  std::string out;
  for (const std::string& d : v.defines) {
    if (family(d) == family(wanted)) {
      out = d;  // definitions come oldest first: each new one is linked after its parent
    }
  }
  return out;
}

}  // namespace

VersionReport check_versions(const ImageRoot& root, const LoadReport& report) {
  VersionReport out;
  std::map<std::string, std::optional<ElfVersions>> read;  // by path: each file read once
  const auto versions_of = [&](const std::string& path) -> const std::optional<ElfVersions>& {
    auto [it, fresh] = read.try_emplace(path);
    if (fresh) {
      auto file = root.open(path);
      if (!file) {
        out.unreadable.push_back(path + ": " + file.error().why);
      } else if (auto v = read_elf_versions(*file)) {
        it->second = std::move(v).value();
      } else {
        out.unreadable.push_back(path + ": " + v.error().why);
      }
    }
    return it->second;
  };
  for (const LoadedObject& o : report.objects) {
    const std::optional<ElfVersions>& own = versions_of(o.path);
    if (!own) {
      continue;
    }
    for (const VersionNeed& need : own->needs) {
      const LoadedObject* provider = report.object(need.file);
      if (provider == nullptr) {
        continue;
      }
      const std::optional<ElfVersions>& defs = versions_of(provider->path);
      if (!defs || !defs->has_verdef) {
        continue;
      }
      for (const std::string& v : need.versions) {
        if (std::find(defs->defines.begin(), defs->defines.end(), v) == defs->defines.end()) {
          out.missing.push_back({v, o.path, need.file, provider->path, newest_of_family(*defs, v)});
        }
      }
    }
  }
  return out;
}

}  // namespace launcher::fabric
