#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>

#include "fixtures.hpp"
#include "plan/gcs_store_volume.hpp"
#include "util/fatal.hpp"

using namespace launcher;

namespace {

constexpr std::uint64_t k_ext4 = 0xef53;
constexpr std::uint64_t k_tmpfs = 0x01021994;
constexpr std::uint64_t k_ramfs = 0x858458f6;
constexpr std::uint64_t k_overlay = 0x794c7630;

const PrepareGcsStore k_want{"/data/gcs", 256ULL << 20, "ml/training"};

// A healthy, empty volume: ext4, 1Gi free, writable.
StoreVolumeFacts good() {
  StoreVolumeFacts f;
  f.directory = true;
  f.fs_type = k_ext4;
  f.free_bytes = 1ULL << 30;
  return f;
}

std::string refusal_of(const StoreVolumeFacts& f) {
  const auto r = judge_store_volume(k_want.path, f, k_want);
  return r ? r->reason + " | fix: " + r->fix : "";
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string fatal_of(const PrepareGcsStore& want) {
  try {
    util::Fd lock = prepare_gcs_store(want);
  } catch (const Fatal& e) {
    CHECK(e.code() == 78);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the store's volume: each refusal names what was found and the fix", "[gcs-store]") {
  CHECK(refusal_of(good()).empty());
  StoreVolumeFacts f = good();
  f.stat_errno = ENOENT;
  CHECK(refusal_of(f) ==
        "/data/gcs does not exist | fix: mount a PersistentVolumeClaim of the head's own at /data/gcs, or set "
        "RAY_gcs_storage_path to where it is mounted");
  f.stat_errno = EACCES;
  CHECK(refusal_of(f).starts_with("/data/gcs cannot be read: Permission denied | fix: mount"));
  f = good();
  f.directory = false;
  CHECK(refusal_of(f).starts_with("/data/gcs is not a directory | fix: point RAY_gcs_storage_path at a directory"));
  f = good();
  f.fs_type = k_tmpfs;
  CHECK(refusal_of(f).starts_with("/data/gcs is on tmpfs: the store would be in memory, counted against the pod's, "
                                  "and lost with the pod"));
  f.fs_type = k_ramfs;
  CHECK(refusal_of(f).starts_with("/data/gcs is on ramfs:"));
  f.fs_type = k_overlay;
  CHECK(refusal_of(f).starts_with("/data/gcs is on the container's own filesystem (overlay): the store would be lost "
                                  "when the container restarts"));
  f = good();
  f.write_error = "create a file: Read-only file system";
  CHECK(refusal_of(f) ==
        "/data/gcs is not writable with a working fsync (create a file: Read-only file system): Ray's GCS fsyncs "
        "every write there and would crash at start | fix: mount the volume read-write, give the container's user "
        "write access (fsGroup), or use a filesystem whose fsync works");
  f = good();
  f.free_bytes = 100ULL << 20;
  CHECK(refusal_of(f) ==
        "/data/gcs has 100Mi free, below the floor of 256Mi (RAYLAUNCH_GCS_STORAGE_MIN_FREE): RocksDB fails writes "
        "on a full volume, and the GCS with them | fix: grow the PersistentVolumeClaim (or free space on it), or "
        "lower RAYLAUNCH_GCS_STORAGE_MIN_FREE");
  f.free_bytes = 256ULL << 20;  // at the floor: enough
  CHECK(refusal_of(f).empty());
}

TEST_CASE("the store's volume: another cluster's database, or one nobody claimed, is refused", "[gcs-store]") {
  StoreVolumeFacts f = good();
  f.owner = "ml/training";  // this cluster's: a restarted head
  f.ray_files = {"kv", "tables", "session_name"};
  CHECK(refusal_of(f).empty());
  f.owner = "ml/other-run";
  f.session_name = "session_2026-12-02_18-45-08_010938_9059";
  CHECK(refusal_of(f) ==
        "/data/gcs holds the GCS database of cluster ml/other-run, Ray session "
        "session_2026-12-02_18-45-08_010938_9059, not ml/training's: Ray would load it and become that cluster | "
        "fix: give this cluster a volume of its own, or empty /data/gcs if ml/other-run is gone");
  f.owner.reset();
  CHECK(refusal_of(f).starts_with("/data/gcs holds a Ray GCS database (kv, tables, session_name, Ray session "
                                  "session_2026-12-02_18-45-08_010938_9059) that no raylaunch claimed"));
  CHECK(refusal_of(f).ends_with("| fix: empty /data/gcs to start a new cluster, or write ml/training into "
                                "/data/gcs/raylaunch-cluster to keep that database"));
  // A hostile claim is shown escaped, never raw.
  f.owner = std::string("ml/\x1b[2Jevil");
  CHECK(refusal_of(f).find('\x1b') == std::string::npos);
}

TEST_CASE("reading a real directory: writable, its free space, Ray's files and the claim", "[gcs-store]") {
  const fixtures::TempDir dir;
  StoreVolumeFacts f = read_store_volume(dir.path());
  CHECK(f.stat_errno == 0);
  CHECK(f.directory);
  CHECK(f.write_error.empty());
  CHECK(f.free_bytes > 0);
  CHECK_FALSE(f.owner);
  CHECK(f.ray_files.empty());
  CHECK(std::filesystem::is_empty(dir.path()));  // the probe left nothing
  std::filesystem::create_directory(dir.path() + "/tables");
  write_file(dir.path() + "/session_name", "session_x");
  write_file(dir.path() + "/raylaunch-cluster", "ml/training\n");
  f = read_store_volume(dir.path());
  CHECK(f.ray_files == std::vector<std::string>{"tables", "session_name"});
  CHECK(f.owner == std::optional<std::string>("ml/training"));
  CHECK(f.session_name == "session_x");
  CHECK(read_store_volume(dir.path() + "/missing").stat_errno == ENOENT);
  CHECK_FALSE(read_store_volume(dir.path() + "/session_name").directory);
}

TEST_CASE("the preflight claims a new volume, takes it back on a restart, and refuses a second writer",
          "[gcs-store]") {
  const fixtures::TempDir dir;
  const PrepareGcsStore want{dir.path(), 1 << 20, "ml/training"};
  {
    util::Fd lock = prepare_gcs_store(want);
    CHECK(lock.valid());
    CHECK(fixtures::slurp(dir.path() + "/raylaunch-cluster") == "ml/training\n");
    // One writer per volume: a second head (here: a second open file) is refused while the first runs.
    const std::string second = fatal_of(want);
    CHECK(second.starts_with("GCS store: " + dir.path() + " is in use by another raylaunch (pid "));
    CHECK(second.find("(fix: run one head per volume") != std::string::npos);
  }
  // The first one gone (its container ended), a restarted head of the same cluster takes it back.
  std::filesystem::create_directory(dir.path() + "/kv");
  CHECK(fatal_of(want).empty());
  // Another cluster given this volume is refused before ray start.
  const std::string other = fatal_of({dir.path(), 1 << 20, "ml/another"});
  CHECK(other.starts_with("GCS store: " + dir.path() + " holds the GCS database of cluster ml/training, not "
                          "ml/another's"));
  // A floor no volume has: refused with the numbers.
  CHECK(fatal_of({dir.path(), 1ULL << 50, "ml/training"}).find("free, below the floor of ") != std::string::npos);
  CHECK(fatal_of({dir.path() + "/nope", 0, "ml/training"}) ==
        "GCS store: " + dir.path() + "/nope does not exist (fix: mount a PersistentVolumeClaim of the head's own at " +
            dir.path() + "/nope, or set RAY_gcs_storage_path to where it is mounted)");
}
