#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace launcher::redis {

// Where one Ray cluster's GCS tables live in Redis, by storage namespace `ns`
// (RAY_external_storage_namespace; ../shared/reference/ray-gcs-wire.md §1):
//   Ray >= 2.38: one hash per table, key "RAY" + ns + "@" + TABLE   ("RAYdefault@NODE")
//   Ray <= 2.37: one hash, key ns, fields ns + "@" + TABLE + ":" + id
// Pure functions, so the rules that keep a cleanup from touching another cluster's keys are
// unit-tested without a server.

// `text` with Redis' glob metacharacters (* ? [ ] \) escaped by a backslash, so SCAN's MATCH
// takes every byte literally: namespace "a*" must not match namespace "ab"'s keys.
std::string escape_glob(std::string_view text);

// How many bytes a glob pattern matches literally before its first wildcard: "RAYns@*" → 6,
// "RAY\*@*" → 5 ("\*" is one literal "*"), "*" → 0.
std::size_t literal_prefix_length(std::string_view pattern);

// SCAN's MATCH pattern for `ns`'s >= 2.38 keys: "RAY" + escape_glob(ns) + "@*". Throws
// std::logic_error for an empty `ns`, or a pattern that would not start with at least
// "RAY" and one literal byte of the namespace (it could match every cluster's keys).
std::string table_key_pattern(std::string_view ns);

// True only for `ns`'s own >= 2.38 keys: "RAY" + ns + "@" + a table name without "@".
// The MATCH pattern of namespace "a" also returns "RAYa@b@NODE", a key of namespace "a@b"
// (Ray's table names are plain identifiers: NODE, ACTOR, JOB, …); this tells them apart.
bool is_table_key(std::string_view ns, std::string_view key);

// True for a field of `ns`'s <= 2.37 hash: ns + "@" + …
bool is_legacy_field(std::string_view ns, std::string_view field);

}  // namespace launcher::redis
