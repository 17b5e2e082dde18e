#pragma once
#include <string>
#include <vector>

#include "fabric/elf_file.hpp"
#include "fabric/image_root.hpp"
#include "util/result.hpp"

namespace launcher::fabric {

// One Elf64_Verneed entry: the versions this object needs from the object named `file` (its
// DT_NEEDED name, which is the provider's SONAME).
struct VersionNeed {
  std::string file;
  std::vector<std::string> versions;       // needed; ld.so refuses the object without them
  std::vector<std::string> weak_versions;  // VER_FLG_WEAK: ld.so only warns
};

// The symbol versions of a shared object, from DT_VERNEED (.gnu.version_r) and DT_VERDEF
// (.gnu.version_d), read through the dynamic section as ld.so reads them (sections may be
// stripped). `defines` is in file order, without the base entry (VER_FLG_BASE: the file's own
// name); `has_verdef` false: the object defines no versions at all.
struct ElfVersions {
  std::vector<VersionNeed> needs;
  std::vector<std::string> defines;
  bool has_verdef = false;
};

// Bounded like read_elf_info: at most k_max_entries entries of each table and one string
// table of at most a few MiB; a count, an offset or a link that leaves the file is `invalid`.
util::Result<ElfVersions, ElfError> read_elf_versions(const RootedFile& file);

inline constexpr std::size_t k_max_version_entries = 4096;

}  // namespace launcher::fabric
