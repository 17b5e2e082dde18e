#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "redis/connection.hpp"
#include "util/result.hpp"

namespace launcher::redis {

struct CleanupOptions {
  std::string storage_namespace;  // RAY_external_storage_namespace; never empty
  bool dry_run = false;           // find and count, delete nothing
  int batch = 1000;               // SCAN COUNT, and so the most keys per UNLINK
  // The whole cleanup's deadline: a server whose SCAN cursor never comes back to 0 must not
  // keep it (and its Job) running for ever.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Called after each round trip with the report so far (a progress line now and then).
  std::function<void(const struct CleanupReport&)> progress;
};

// One of the namespace's >= 2.38 keys, as found.
struct FoundKey {
  std::string key;        // "RAYns@NODE"
  long long fields = 0;   // HLEN
  bool deleted = false;   // its UNLINK was answered (never in a dry run)
};

struct CleanupReport {
  bool dry_run = false;
  std::vector<FoundKey> keys;  // >= 2.38 layout, in the order SCAN found them
  long long fields = 0;        // their fields, summed
  long long unlinked = 0;      // what UNLINK said it removed (0 in a dry run)
  enum class Legacy { absent, deleted, left_alone, unchecked };
  Legacy legacy = Legacy::absent;  // the <= 2.37 hash named after the namespace
  long long legacy_fields = 0;
  std::string legacy_note;              // why it was left alone, or not looked at
  std::vector<std::string> other_keys;  // MATCH hits of another namespace ("RAYa@b@NODE" for "a")
  std::vector<std::string> not_hashes;  // the namespace's keys that are not hashes: left alone
  int round_trips = 0;
  // Set when the cleanup stopped before the end (an error reply, the server gone, the deadline,
  // a stop request): what the report says was deleted stays deleted.
  std::optional<RedisError> error;
};

// Deletes (or, in a dry run, counts) one cluster's keys, both layouts: SCAN MATCH
// "RAY<ns>@*" COUNT `batch` (never KEYS: it blocks the server), keeping only the keys
// is_table_key() accepts; each batch's HLEN rides with the next SCAN, and the UNLINK
// (non-blocking delete) of the keys HLEN found to be hashes with the SCAN after that — a key
// of the namespace that is not a hash is not Ray's and is left alone, as a legacy key that is
// not a hash is. The <= 2.37 hash `ns` is deleted when it is a hash whose sampled fields
// (HRANDFIELD, Redis 6.2+) all start with "<ns>@"; otherwise it is left alone and the report
// says why; a user that may not read it (NOPERM: an ACL user limited to ~RAY<ns>@*, all a
// Ray >= 2.38 cluster needs) leaves it unchecked. `connection` must be authenticated. The
// report always comes back; `error` says why it ended early (an error reply to SCAN, HLEN or
// UNLINK: Kind::server, or Kind::auth for NOPERM; the server gone; the deadline: Kind::timeout;
// a stop request). What was deleted by then stays deleted; running it again finishes the job.
CleanupReport cleanup_namespace(Connection& connection, const CleanupOptions& options);

// The report for people, one line each: what was (or would be) deleted per key with its
// field count (the first `max_listed` keys, then how many more), what was left alone and
// why, and the totals with the round trips taken — for a cleanup that ended early, what it
// had deleted by then. Keys are shown escaped (util::printable).
std::vector<std::string> render_cleanup(const CleanupReport& report, const std::string& storage_namespace,
                                        std::size_t max_listed = 100);

}  // namespace launcher::redis
