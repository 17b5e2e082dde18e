#pragma once
#include <string>
#include <string_view>
#include <vector>

// Exit codes are a public contract (docs/run.md "Exit codes", `raylaunch --help`, both generated
// from exit_code_list() below); values follow sysexits(3), and for the launch command, the
// shells' and tini's conventions.
namespace launcher::exit_code {
inline constexpr int ok = 0;
inline constexpr int unhealthy = 1;        // probes: one line says why
inline constexpr int usage = 64;           // EX_USAGE: bad setting or argument; nothing started
inline constexpr int unavailable = 69;     // EX_UNAVAILABLE: GCS/head/Redis/ray unusable
inline constexpr int software = 70;        // EX_SOFTWARE: a bug in raylaunch (unexpected exception)
inline constexpr int os_error = 71;        // EX_OSERR: a system call failed (the signalfd at run's start)
inline constexpr int io_error = 74;        // EX_IOERR: output could not be written (stdout full)
inline constexpr int temp_fail = 75;       // EX_TEMPFAIL: join barrier timed out
inline constexpr int stuck = 76;           // the command stopped for a stuck NCCL collective (retryable)
inline constexpr int no_permission = 77;   // EX_NOPERM: redis-cleanup's ACL user may not (NOPERM): no retry heals it
inline constexpr int config = 78;          // EX_CONFIG: a node check failed in strict mode
inline constexpr int not_executable = 126;  // the launch command exists but cannot be executed
inline constexpr int not_found = 127;       // the launch command was not found
// A process killed by signal `sig` reports 128 + sig, as shells do (143 after SIGTERM).
constexpr int killed_by(int sig) { return 128 + sig; }
}  // namespace launcher::exit_code

namespace launcher {

// One row per code raylaunch can return, in order.
struct ExitCodeInfo {
  int code;                  // the value; for the open-ended rows, their smallest (128+N) or -1 (other)
  std::string_view shown;    // how the code is written when not a plain number ("128+N", "other")
  std::string_view name;     // sysexits(3)'s name, or what the code is
  std::string_view summary;  // --help's few words
  std::string_view meaning;  // docs/run.md's full sentence (markdown)
  std::string code_text() const { return shown.empty() ? std::to_string(code) : std::string(shown); }
};

const std::vector<ExitCodeInfo>& exit_code_list();
std::string exit_codes_help();      // "Exit codes: 0 ok …; 1 …", wrapped for a terminal
std::string exit_codes_markdown();  // docs/run.md's table

}  // namespace launcher
