#pragma once
#include <string>
#include <vector>

#include "redis/connection.hpp"
#include "util/result.hpp"

namespace launcher::redis {

struct CleanupOptions {
  std::string storage_namespace;  // RAY_external_storage_namespace; never empty
  bool dry_run = false;           // find and count, delete nothing
  int batch = 1000;               // SCAN COUNT, and so the most keys per UNLINK
};

// One of the namespace's >= 2.38 keys, as found.
struct FoundKey {
  std::string key;        // "RAYns@NODE"
  long long fields = -1;  // HLEN; -1 when the key is not a hash
};

struct CleanupReport {
  bool dry_run = false;
  std::vector<FoundKey> keys;  // >= 2.38 layout, in the order SCAN found them
  long long fields = 0;        // their fields, summed
  long long unlinked = 0;      // what UNLINK said it removed (0 in a dry run)
  enum class Legacy { absent, deleted, left_alone };
  Legacy legacy = Legacy::absent;  // the <= 2.37 hash named after the namespace
  long long legacy_fields = 0;
  std::string legacy_note;              // why it was left alone
  std::vector<std::string> other_keys;  // MATCH hits of another namespace ("RAYa@b@NODE" for "a")
  int round_trips = 0;
};

// Deletes (or, in a dry run, counts) one cluster's keys, both layouts: SCAN MATCH
// "RAY<ns>@*" COUNT `batch` (never KEYS: it blocks the server), keeping only the keys
// is_table_key() accepts; each batch's HLEN and UNLINK (non-blocking delete) ride in the
// same round trip as the next SCAN. The <= 2.37 hash `ns` is deleted when it is a hash whose
// sampled fields (HRANDFIELD, Redis 6.2+) all start with "<ns>@"; otherwise it is left alone
// and the report says why. `connection` must be authenticated. An error reply to SCAN,
// HLEN (other than WRONGTYPE) or UNLINK ends the cleanup (Kind::server: NOPERM, …); what
// was deleted by then stays deleted, and running it again finishes the job.
util::Result<CleanupReport, RedisError> cleanup_namespace(Connection& connection, const CleanupOptions& options);

// The report for people, one line each: what was (or would be) deleted per key with its
// field count (the first `max_listed` keys, then how many more), what was left alone and
// why, and the totals with the round trips taken. Keys are shown escaped (util::printable).
std::vector<std::string> render_cleanup(const CleanupReport& report, const std::string& storage_namespace,
                                        std::size_t max_listed = 100);

}  // namespace launcher::redis
