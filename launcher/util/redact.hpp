#pragma once
#include <string>
#include <string_view>

namespace launcher::util {

// Secrets (Ray's auth token, the Redis password) are registered once, when they are read,
// and every log line — raylaunch's and gRPC's own — passes through redact(), which replaces
// each registered secret with "***". A secret still never goes into a message on purpose;
// this is the net under that rule (a server echoing a token back, a library's debug trace).
void add_secret(std::string secret);

// `text` with every registered secret replaced by "***".
std::string redact(std::string_view text);

}  // namespace launcher::util
