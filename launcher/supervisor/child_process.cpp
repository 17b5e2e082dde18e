#include "supervisor/child_process.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace launcher::supervisor {

namespace {

// Between fork and execve only async-signal-safe calls: sigprocmask, sigaction, setpgid,
// dup2, close_range.
void clean_start(int output_fd) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    sigaction(sig, &dfl, nullptr);  // fails harmlessly for SIGKILL, SIGSTOP and glibc's own
  }
  setpgid(0, 0);
  if (output_fd >= 0) {
    dup2(output_fd, STDOUT_FILENO);
    dup2(output_fd, STDERR_FILENO);
  }
  // gRPC's, Asio's and the health endpoint's descriptors must not outlive raylaunch in Ray's
  // processes (a listening socket held by a raylet keeps the port busy after a restart).
  if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0) {
    for (int fd = 3; fd < 65536; ++fd) {
      close(fd);
    }
  }
}

SpawnError error_from(int err, const std::string& exe) {
  // 127 not found, 126 found but not executable: what shells and tini report.
  const int code = err == ENOENT || err == ENOTDIR ? 127 : 126;
  return {code, exe + ": " + std::strerror(err)};
}

}  // namespace

util::Result<SpawnedChild, SpawnError> spawn_child(const SpawnRequest& request) {
  using R = util::Result<SpawnedChild, SpawnError>;
  namespace bp = boost::process;
  int pipe_fds[2] = {-1, -1};
  if (request.capture_output && pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return R::failure({126, std::string("pipe: ") + std::strerror(errno)});
  }
  util::Fd read_end(pipe_fds[0]);
  util::Fd write_end(pipe_fds[1]);
  const int child_out = write_end.get();
  std::vector<std::string> args(request.argv.begin() + (request.argv.empty() ? 0 : 1), request.argv.end());
  try {
    bp::child child(bp::exe = request.exe, bp::args = args,
                    bp::extend::on_exec_setup = [child_out](auto& /*executor*/) { clean_start(child_out); });
    SpawnedChild spawned;
    spawned.pid = child.id();
    child.detach();
    spawned.output = std::move(read_end);
    return spawned;
  } catch (const bp::process_error& e) {
    return R::failure(error_from(e.code().value(), request.exe));
  }
}

SpawnError exec_in_place(const std::string& exe, const std::vector<std::string>& argv) {
  std::vector<char*> cargv;
  for (const std::string& a : argv) {
    cargv.push_back(const_cast<char*>(a.c_str()));
  }
  cargv.push_back(nullptr);
  clean_start(-1);
  execv(exe.c_str(), cargv.data());
  return error_from(errno, exe);
}

}  // namespace launcher::supervisor
