#pragma once
#include <string>
#include <vector>

#include "fabric/dynamic_linker.hpp"
#include "fabric/image_root.hpp"

namespace launcher::fabric {

// A symbol version an object needs that the library the linker found for it does not define:
// ld.so refuses the object ("version `FABRIC_1.7' not found (required by …)").
struct MissingVersion {
  std::string version;        // "FABRIC_1.7"
  std::string object;         // the path of the object that needs it
  std::string provider;       // the need's file name, "libfabric.so.1"
  std::string provider_path;  // where the linker found it
  std::string newest;         // the provider's last definition of the same family ("FABRIC_1.5"); "" none
};

struct VersionReport {
  std::vector<MissingVersion> missing;
  std::vector<std::string> unreadable;  // "path: why": version tables that could not be read
};

// glibc's version check after loading (elf/dl-version.c _dl_check_map_versions): every
// non-weak version each object of `report` needs must be defined by the object the need names,
// as loaded. A provider with no version definitions at all passes (ld.so only warns, "no version
// information available"); a provider that was not found is the load report's problem already.
VersionReport check_versions(const ImageRoot& root, const LoadReport& report);

}  // namespace launcher::fabric
