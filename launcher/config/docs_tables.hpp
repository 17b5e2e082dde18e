#pragma once
#include <string>
#include <string_view>

namespace launcher {

// docs/run.md's tables that are generated from the code, so that they cannot drift from it:
// the settings (config/settings.cpp) and the exit codes (util/exit_codes.cpp). Each sits
// between two marker lines in the document:
//   <!-- generated: NAME table ... -->
//   …
//   <!-- end: NAME table -->

// The settings table (markdown), one row per setting in table order.
std::string settings_markdown();

// `doc` with the lines between each pair of markers replaced by the current table; a missing
// marker is a std::runtime_error naming it.
std::string with_generated_tables(std::string_view doc);

}  // namespace launcher
