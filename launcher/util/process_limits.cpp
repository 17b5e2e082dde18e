#include "util/process_limits.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "util/host_fs.hpp"
#include "util/parse.hpp"

namespace launcher::util {

namespace {

int resource_id(LimitResource r) { return r == LimitResource::memlock ? RLIMIT_MEMLOCK : RLIMIT_NOFILE; }

std::optional<std::uint64_t> from_rlim(rlim_t v) {
  return v == RLIM_INFINITY ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(v));
}

std::optional<Limit> read_one(LimitResource r) {
  rlimit rl{};
  if (::getrlimit(resource_id(r), &rl) != 0) {
    return std::nullopt;
  }
  return Limit{from_rlim(rl.rlim_cur), from_rlim(rl.rlim_max)};
}

}  // namespace

const char* to_string(LimitResource r) { return r == LimitResource::memlock ? "RLIMIT_MEMLOCK" : "RLIMIT_NOFILE"; }

// CAP_IPC_LOCK is bit 14 of the capability sets (linux/capability.h).
bool has_cap_ipc_lock() {
  const auto status = read_small_file("/proc/self/status", 64 * 1024);
  if (!status) {
    return false;
  }
  const auto at = status->find("\nCapEff:");
  if (at == std::string::npos) {
    return false;
  }
  const std::string hex(trim(std::string_view(*status).substr(at + 8, status->find('\n', at + 1) - at - 8)));
  try {
    return ((std::stoull(hex, nullptr, 16) >> 14) & 1ULL) != 0;
  } catch (const std::exception&) {
    return false;
  }
}

ProcessLimits read_process_limits() {
  return {read_one(LimitResource::memlock), read_one(LimitResource::nofile), has_cap_ipc_lock()};
}

std::string set_soft_limit(LimitResource resource, std::optional<std::uint64_t> soft) {
  rlimit rl{};
  if (::getrlimit(resource_id(resource), &rl) != 0) {
    return std::strerror(errno);
  }
  rl.rlim_cur = soft ? static_cast<rlim_t>(*soft) : RLIM_INFINITY;
  if (::setrlimit(resource_id(resource), &rl) != 0) {
    return std::strerror(errno);
  }
  return "";
}

}  // namespace launcher::util
