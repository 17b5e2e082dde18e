#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan_items.hpp"
#include "util/fd.hpp"

namespace launcher {

// The head's GCS store directory (RAY_gcs_storage_path) as `run` finds it before `ray start`.
struct StoreVolumeFacts {
  int stat_errno = 0;             // stat() of the path failed with this (ENOENT: missing); 0: it worked
  bool directory = false;
  std::uint64_t fs_type = 0;      // statfs f_type (TMPFS_MAGIC, OVERLAYFS_SUPER_MAGIC, …)
  std::uint64_t free_bytes = 0;   // f_bavail × f_bsize: what a writer that is not root gets
  std::string write_error;        // the probe (create, write, fsync the file and the directory,
                                  // unlink) failed: its step and strerror; "" when it all worked
  std::optional<std::string> owner;     // the text of raylaunch-cluster, when there is one
  std::vector<std::string> ray_files;   // Ray's entries there: kv, tables, session_name
  std::string session_name;             // Ray's session_name file, for messages
};

// Reads the facts of `path`. Writes and removes one small probe file in it (the only way to
// know that writes and fsync work there); never anything else.
StoreVolumeFacts read_store_volume(const std::string& path);

struct StoreRefusal {
  std::string reason;  // one line: what was found, and why the store cannot be there
  std::string fix;     // one line
};

// Pure: the verdict on `facts` for `want`: nullopt when the store may live there. Refused: a path
// that is missing, not a directory or unreadable; on tmpfs or ramfs (memory: counted against the
// pod's, gone with the pod, fsync a no-op) or on the container's own overlay (gone when the
// container restarts); unwritable or without a working fsync; with less than `want.min_free`
// free; holding another cluster's claim, or Ray's databases without any claim (Ray 2.60 loads
// any database it finds and becomes that cluster: docs/run.md).
std::optional<StoreRefusal> judge_store_volume(const std::string& path, const StoreVolumeFacts& facts,
                                               const PrepareGcsStore& want);

// The whole preflight of the head, before `ray start` (the plan's PrepareGcsStore): read, judge,
// lock `<path>/raylaunch.lock` (flock, held by the returned descriptor: one writer per volume,
// for the life of PID 1), then claim an unclaimed directory for `want.owner` (raylaunch-cluster,
// written atomically and durably). Throws Fatal(78) with the reason and the fix on a refusal, a
// lock held by another process, or a claim that cannot be written.
util::Fd prepare_gcs_store(const PrepareGcsStore& want);

// The names raylaunch keeps beside Ray's files.
inline constexpr const char* k_store_owner_file = "raylaunch-cluster";
inline constexpr const char* k_store_lock_file = "raylaunch.lock";

}  // namespace launcher
