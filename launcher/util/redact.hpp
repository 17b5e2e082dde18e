#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace launcher::util {

// Secrets (Ray's auth token, the Redis password) are registered once, when they are read,
// and every log line — raylaunch's and gRPC's own — passes through redact(), which replaces
// each registered secret with "***". A secret still never goes into a message on purpose;
// this is the net under that rule (a server echoing a token back, a library's debug trace).
// Redact whole lines, before any cut: a secret split by a cut is no longer found.
// Registering a secret that is there already counts it once more.
void add_secret(std::string secret);

// Undoes one add_secret of `secret`; it stops being masked when no registration is left. For
// secrets that are replaced over a run (a token that rotates every few minutes), so that the list
// every log line is checked against does not grow for as long as the run lasts.
void remove_secret(const std::string& secret);

// `text` with every registered secret replaced by "***"; a secret under 4 bytes only where it
// stands as a whole word (not inside a longer run of letters, digits, '_' or '-').
std::string redact(std::string_view text);

// The length of the longest registered secret (0: none): what a stream cut into pieces must
// hold back at each cut so that no secret straddles it unredacted.
std::size_t longest_secret();

}  // namespace launcher::util
