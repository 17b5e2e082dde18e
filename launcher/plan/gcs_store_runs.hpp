#pragma once
#include <string>

namespace launcher {

// How many times the head's command has started on this cluster's GCS store, kept in the store
// itself beside the claim (`<path>/raylaunch-command-runs`). The store outlives the head's
// container, and a restarted container reruns the command on the same cluster: without the
// record its RAYLAUNCH_RESTART_COUNT would start at 0 again, and the command could not tell a
// resumed run from a first one.
inline constexpr const char* k_store_runs_file = "raylaunch-command-runs";

struct RecordedRuns {
  int runs = 0;         // starts recorded so far; 0 for a new store (or one from before the record)
  std::string problem;  // "" or why the record was not read ("holds \"x\", not a count"): `runs` is 0 then
};

// Reads the record in `store_path` (the claimed and locked directory). Never throws: a record
// that is missing is 0 runs, one that cannot be read or is not a count is 0 with a problem.
RecordedRuns read_command_runs(const std::string& store_path);

// Writes `runs` durably (util::write_durably) before the command starts; "" or the failing step.
std::string record_command_runs(const std::string& store_path, int runs);

}  // namespace launcher
