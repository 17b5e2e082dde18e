// The command's starts recorded on the head's GCS store (plan/gcs_store_runs.hpp), in a temp dir
// standing in for the claimed volume.
#include <catch2/catch.hpp>
#include <fstream>

#include "fixtures.hpp"
#include "plan/gcs_store_runs.hpp"

using namespace launcher;

TEST_CASE("the store's record of the command's starts: absent is 0, written durably, read back", "[gcs-store]") {
  const fixtures::TempDir dir;
  // A new store, or one a raylaunch from before the record claimed: no start recorded, no problem.
  RecordedRuns none = read_command_runs(dir.path());
  CHECK(none.runs == 0);
  CHECK(none.problem.empty());

  CHECK(record_command_runs(dir.path(), 1).empty());
  CHECK(fixtures::slurp(dir.path() + "/raylaunch-command-runs") == "1\n");
  CHECK(record_command_runs(dir.path(), 3).empty());
  CHECK(read_command_runs(dir.path()).runs == 3);
  CHECK(read_command_runs(dir.path()).problem.empty());

  // Not a count: 0, and the problem names what is there.
  std::ofstream(dir.path() + "/raylaunch-command-runs") << "three\n";
  const RecordedRuns bad = read_command_runs(dir.path());
  CHECK(bad.runs == 0);
  CHECK(bad.problem.starts_with("holds \"three\", not a count ("));
  std::ofstream(dir.path() + "/raylaunch-command-runs") << "-1\n";
  CHECK(read_command_runs(dir.path()).problem.starts_with("holds \"-1\", not a count"));

  // A store that cannot be written: the failing step, never a throw.
  CHECK(record_command_runs(dir.path() + "/missing", 1).starts_with("create: No such file or directory"));
}
