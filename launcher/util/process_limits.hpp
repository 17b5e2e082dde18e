#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace launcher::util {

// A resource limit; nullopt means "unlimited" (RLIM_INFINITY).
struct Limit {
  std::optional<std::uint64_t> soft;
  std::optional<std::uint64_t> hard;
};

enum class LimitResource { memlock, nofile };
const char* to_string(LimitResource r);  // "RLIMIT_MEMLOCK", "RLIMIT_NOFILE"

// This process's own limits, from getrlimit(2): what `ray start` and the launch command will
// inherit. Not read from /proc/self/limits under a host root: a fake tree must never decide
// the setrlimit of a real process. Unit tests build a ProcessLimits value instead.
struct ProcessLimits {
  std::optional<Limit> memlock;  // nullopt: getrlimit failed
  std::optional<Limit> nofile;
  bool cap_ipc_lock = false;     // CAP_IPC_LOCK is effective (CapEff in /proc/self/status)
};
ProcessLimits read_process_limits();

// setrlimit(2) of the soft limit to `soft` (nullopt: unlimited), the hard limit unchanged.
// "" on success, else the reason ("Operation not permitted").
std::string set_soft_limit(LimitResource resource, std::optional<std::uint64_t> soft);

}  // namespace launcher::util
