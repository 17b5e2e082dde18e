#include "plan/gcs_store_runs.hpp"

#include <cerrno>
#include <cstdint>
#include <string_view>
#include <sys/stat.h>

#include "util/durable_write.hpp"
#include "util/host_fs.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher {

RecordedRuns read_command_runs(const std::string& store_path) {
  const std::string file = store_path + "/" + k_store_runs_file;
  struct stat st{};
  if (::lstat(file.c_str(), &st) != 0 && errno == ENOENT) {
    return {};
  }
  std::string why;
  const auto text = util::read_small_file(file, 64, &why);
  if (!text) {
    return {0, "cannot be read (" + why + ")"};
  }
  const std::string_view count = util::trim(*text);
  // A count the next start can still add one to.
  const auto runs = util::parse_int(count, 0, INT32_MAX - 1);
  if (!runs) {
    return {0, "holds \"" + util::printable(count, 32) + "\", not a count (" + runs.error() + ")"};
  }
  return {static_cast<int>(runs.value()), ""};
}

std::string record_command_runs(const std::string& store_path, int runs) {
  return util::write_durably(store_path, k_store_runs_file, std::to_string(runs));
}

}  // namespace launcher
