#pragma once
// Exit codes are a public contract (README "Exit codes"); values follow sysexits(3).
namespace launcher::exit_code {
inline constexpr int ok = 0;
inline constexpr int unhealthy = 1;      // probes: one line says why
inline constexpr int usage = 64;         // EX_USAGE: bad setting or argument; nothing started
inline constexpr int unavailable = 69;   // EX_UNAVAILABLE: GCS/head unreachable at the deadline
inline constexpr int software = 70;      // EX_SOFTWARE: a bug in raylaunch (unexpected exception)
inline constexpr int os_error = 71;      // EX_OSERR: a system call failed (fork, exec set-up)
inline constexpr int temp_fail = 75;     // EX_TEMPFAIL: join barrier timed out
inline constexpr int config = 78;        // EX_CONFIG: a node check failed in strict mode
}  // namespace launcher::exit_code
