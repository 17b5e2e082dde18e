#include "util/exit_codes.hpp"

#include <algorithm>

namespace launcher {

const std::vector<ExitCodeInfo>& exit_code_list() {
  using namespace exit_code;
  static const std::vector<ExitCodeInfo> list = {
      {ok, "", "ok", "ok (and SIGTERM after success with --on-success stay)",
       "success (and, with `--on-success stay`, SIGTERM after success)"},
      {unhealthy, "", "unhealthy", "probe unhealthy", "a probe found the pod unhealthy (one line says why)"},
      {usage, "", "EX_USAGE", "bad setting or argument",
       "a bad setting or argument, or no command on the head, or `--exec` with `stay` or a health port: one line "
       "per problem, naming the setting, the value and what is expected (a TLS file missing, unreadable or not PEM; "
       "`RAY_AUTH_MODE=token` without a usable token); nothing started"},
      {unavailable, "", "EX_UNAVAILABLE", "head/GCS/Redis/ray unusable, Ray died, a worker's Ray exited",
       "something raylaunch depends on is not usable: the head or its GCS unreachable at the deadline or refusing "
       "our credentials (token refused, TLS handshake failed over certificates: at once, not at the deadline), "
       "`ray` not found, `ray start` failed, Ray died under the command, a worker's Ray exited, a worker's head "
       "replaced by a new cluster or its node DEAD in the head's GCS (the head watch), Redis unreachable or "
       "refusing, `redis-cleanup` stopped by an error, the server gone or its deadline"},
      {software, "", "EX_SOFTWARE", "internal error",
       "an internal error in raylaunch (please report it), also a wait that threw; the run still stops what it "
       "started"},
      {os_error, "", "EX_OSERR", "a system call raylaunch cannot do without failed (signalfd, pipe, thread)",
       "a system call raylaunch cannot supervise without failed: the signalfd at `run`'s start (nothing started), "
       "the pipe for a child's output (out of file descriptors), or a thread for a wait that the run cannot go on "
       "without, such as the join barrier (EAGAIN at the pod's pids limit; a drain or head watch without one is only "
       "said); what was started is stopped"},
      {io_error, "", "EX_IOERR", "output not written", "the output (`plan`, `status`) could not be written"},
      {temp_fail, "", "EX_TEMPFAIL", "join barrier timed out",
       "the join barrier timed out; the line names the missing pods"},
      {stuck, "", "stuck", "the command stopped for a stuck NCCL collective (retryable)",
       "the command was stopped because an NCCL communicator made no progress across `--nccl-ras-polls` polls of "
       "NCCL's RAS (`--nccl-ras-on-stuck stop`); retryable: with `--restarts` it runs again in place, from its last "
       "checkpoint, before NCCL's own watchdog would have ended it"},
      {no_permission, "", "EX_NOPERM", "redis-cleanup refused by Redis' ACL (NOPERM)",
       "`redis-cleanup`: Redis' ACL refused a command (NOPERM); no retry heals it (the Job fails at once)"},
      {config, "", "EX_CONFIG", "a node check failed (checks=strict)",
       "a node check failed with `--checks strict`, a worker's Ray or Python version differing from the head's "
       "included; nothing started"},
      {not_executable, "", "not executable",
       "the command cannot be executed (not executable, no #! line, missing interpreter, text file busy)",
       "the launch command cannot be executed: not executable, not an executable format (no `#!` line), its `#!` "
       "interpreter missing or with a CRLF end, text file busy, E2BIG — the reason in the log and the termination "
       "message"},
      {not_found, "", "not found", "the command not found", "the launch command was not found"},
      {killed_by(0), "128+N", "killed by signal N",
       "killed by, or stopped by, signal N (143 after SIGTERM, 130 after SIGINT)",
       "killed by signal N: the command's own status, or raylaunch stopped by SIGTERM (143) or SIGINT (130) — a "
       "drained worker too"},
      {-1, "other", "the command's status", "the launch command's own status",
       "the launch command's own status"},
  };
  return list;
}

std::string exit_codes_help() {
  // CLI11 prints a footer as is: wrap it here, at 100 columns like the rest of --help.
  constexpr std::size_t k_width = 100;
  // A code and the first word of its summary stay on one line: '\x1f' holds them together.
  constexpr char k_glue = '\x1f';
  std::string text = "Exit codes:";
  const auto& list = exit_code_list();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string code = list[i].code < 0 ? "otherwise" : list[i].code_text();  // the "other" row
    text += " " + code + k_glue + std::string(list[i].summary) + (i + 1 < list.size() ? ";" : ".");
  }
  text += std::string(" (docs/run.md,") + k_glue + "\"Exit" + k_glue + "codes\")";
  std::string out;
  std::size_t line = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = std::string_view(text).substr(at, end - at);
    if (line > 0 && line + 1 + word.size() > k_width) {
      out += '\n';
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out += word;
    line += word.size();
    std::replace(out.end() - static_cast<std::ptrdiff_t>(word.size()), out.end(), k_glue, ' ');
    at = end + 1;
  }
  return out;
}

std::string exit_codes_markdown() {
  std::string out = "| code | name | meaning |\n|---|---|---|\n";
  for (const ExitCodeInfo& e : exit_code_list()) {
    out += "| " + e.code_text() + " | " + std::string(e.name) + " | " + std::string(e.meaning) + " |\n";
  }
  return out;
}

}  // namespace launcher
