#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "fabric/image_root.hpp"

namespace launcher::fabric {

// Finds `marker` in `file` and returns the word after it (the bytes up to the first one outside
// [0-9A-Za-z.+_-]). Looks in section `section` when the file has section headers, else from the
// start of the file; reads at most `max_bytes`, in chunks, never the whole of a big library.
std::optional<std::string> find_tagged_word(const RootedFile& file, std::string_view section, std::string_view marker,
                                            std::size_t max_bytes);

// The version a versioned file name carries after `stem`: ("libnccl.so.2.27.7", "libnccl.so.")
// → "2.27.7"; nullopt unless at least major.minor follows.
std::optional<std::string> version_in_file_name(std::string_view file_name, std::string_view stem);

// Compares the leading dotted numbers of two versions ("1.13.2-aws" < "1.16.0"): <0, 0, >0.
// Missing parts count as 0; text after the numbers is ignored.
int compare_versions(std::string_view a, std::string_view b);

}  // namespace launcher::fabric
