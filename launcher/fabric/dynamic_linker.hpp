#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/elf_file.hpp"
#include "fabric/image_root.hpp"
#include "fabric/ld_cache.hpp"

namespace launcher::fabric {

// One set of directories the search went through, in order: "RUNPATH of /opt/x/libfoo.so",
// "LD_LIBRARY_PATH", "ld.so.cache", "default directories".
struct SearchedPlace {
  std::string label;
  std::vector<std::string> dirs;  // expanded ($ORIGIN), under the image root; none for the cache
};

struct LoadedObject {
  std::string name;       // as asked for: a DT_NEEDED entry or the dlopen argument
  std::string path;       // where it was found, under the image root
  std::string real_path;  // `path` with symlinks resolved (libnccl.so.2 → libnccl.so.2.27.7)
  std::string via;        // the SearchedPlace label it was found in, or "path"
  std::string needed_by;  // the path of the object that needed it; "" for the one asked for
  ElfInfo elf;
  int depth = 0;
  int loader = -1;        // index of needed_by in LoadReport::objects; -1: the caller
};

struct MissingLibrary {
  std::string name;
  std::string needed_by;  // "" for the one asked for
  std::vector<SearchedPlace> searched;
};

// Found but unloadable, which ends the search with an error in ld.so: a symlink loop, a
// directory, a truncated or corrupt ELF file.
struct UnusableLibrary {
  std::string name;
  std::string path;
  std::string needed_by;
  std::string why;
};

struct LoadReport {
  std::vector<LoadedObject> objects;  // objects[0] is the one asked for, when found; then breadth first
  std::vector<MissingLibrary> missing;
  std::vector<UnusableLibrary> unusable;
  std::vector<std::string> skipped;   // files passed over as ld.so does: "path: 32-bit ELF"
  std::string limit;                  // non-empty: the walk stopped at a limit, which one

  bool found() const { return !objects.empty(); }
  bool complete() const { return found() && missing.empty() && unusable.empty() && limit.empty(); }
  const LoadedObject* object(std::string_view name) const;  // by name asked for or SONAME
};

// The environment the search runs in, as the dynamic linker of the process would see it.
struct LinkerEnv {
  std::vector<std::string> library_path;  // LD_LIBRARY_PATH entries, in order
  const LdCache* cache = nullptr;         // nullptr: no usable /etc/ld.so.cache
  std::string cache_problem = "none";     // why not, for the places searched
  std::uint16_t machine = 0;              // the process's EM_* (the caller's, else this build's)
};

struct LinkerLimits {
  int max_depth = 16;
  std::size_t max_objects = 256;
};

// glibc's search for a library, done by reading ELF files and never loading one (ld.so(8);
// glibc elf/dl-load.c _dl_map_object): a name with a slash is a path; otherwise, in order,
//   1. DT_RPATH of the object that needs it, then of the object that loaded that one, and on
//      up, unless the needing object has DT_RUNPATH (which also voids its own DT_RPATH);
//   2. LD_LIBRARY_PATH;
//   3. DT_RUNPATH of the needing object only (not inherited);
//   4. /etc/ld.so.cache, then 5. the default directories, both unless DF_1_NODEFLIB.
// $ORIGIN is the directory of the object that holds the path, as found (not symlink-resolved).
// A file for another machine or word size is passed over; a broken file ends the search.
class DynamicLinker {
 public:
  DynamicLinker(const ImageRoot& root, LinkerEnv env, LinkerLimits limits = {});

  // What dlopen(`name`) called from `caller` (nullptr: from the program) would load: the
  // object, then every DT_NEEDED, transitively, breadth first, each name once.
  LoadReport dlopen(std::string_view name, const LoadedObject* caller) const;
  // Only where dlopen(`name`) would find the object itself: its dependencies are not read.
  LoadReport locate(std::string_view name, const LoadedObject* caller) const;

 private:
  struct Outcome;
  Outcome search(std::string_view name, const LoadReport& report, int requester, const LoadedObject* caller) const;
  bool record(LoadReport& report, Outcome&& o, std::string_view wanted, int loader) const;
  std::vector<SearchedPlace> places(const LoadReport& report, int requester, const LoadedObject* caller) const;

  const ImageRoot& m_root;
  LinkerEnv m_env;
  LinkerLimits m_limits;
};

// The directories ld.so falls back to for `machine`: the Debian/Ubuntu multiarch pair, then
// the lib64 pair (RHEL, Amazon Linux), then /lib and /usr/lib.
std::vector<std::string> default_dirs(std::uint16_t machine);

// LD_LIBRARY_PATH's entries (':' or ';' separated, as glibc splits them), without the empty
// and relative ones (they name the working directory, which a check cannot know).
std::vector<std::string> split_library_path(std::string_view value);

// The machine this program was built for (EM_*).
std::uint16_t host_machine();

}  // namespace launcher::fabric
