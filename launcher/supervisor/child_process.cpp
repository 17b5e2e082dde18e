#include "supervisor/child_process.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "supervisor/descriptors.hpp"

extern char** environ;  // NOLINT: POSIX

namespace launcher::supervisor {

namespace {

// Between fork and execve only async-signal-safe calls: sigaction, setpgid, dup2, fcntl,
// close_range, sigprocmask. The mask is emptied last, when every disposition is the default.
void clean_start(int output_fd, const std::vector<int>& descriptors) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    sigaction(sig, &dfl, nullptr);  // fails harmlessly for SIGKILL, SIGSTOP and glibc's own
  }
  setpgid(0, 0);
  if (output_fd >= 0) {
    dup2(output_fd, STDOUT_FILENO);  // dup2 clears close-on-exec on the copies
    dup2(output_fd, STDERR_FILENO);
  }
  mark_close_on_exec(3, descriptors);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

}  // namespace

ChildEnvironment::ChildEnvironment(const std::vector<std::string>& drop,
                                   const std::vector<std::pair<std::string, std::string>>& set) {
  auto is_set = [&set](const std::string& name) {
    return std::any_of(set.begin(), set.end(), [&name](const auto& kv) { return kv.first == name; });
  };
  for (char** var = environ; var != nullptr && *var != nullptr; ++var) {
    const std::string entry(*var);
    const std::string name = entry.substr(0, entry.find('='));
    if (std::find(drop.begin(), drop.end(), name) == drop.end() && !is_set(name)) {
      m_vars.push_back(entry);
    }
  }
  for (const auto& [name, value] : set) {
    m_vars.push_back(name + "=" + value);
  }
  for (std::string& var : m_vars) {
    m_pointers.push_back(var.data());
  }
  m_pointers.push_back(nullptr);
}

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
  ChildEnvironment environment(request.drop_env, request.set_env);
  const std::vector<int> descriptors = open_descriptors(3);
  try {
    bp::child child(
        bp::exe = request.exe, bp::args = args,
        bp::extend::on_setup = [&environment](auto& executor) { executor.env = environment.envp(); },
        bp::extend::on_exec_setup = [child_out, &descriptors](auto& /*executor*/) { clean_start(child_out, descriptors); });
    SpawnedChild spawned;
    spawned.pid = child.id();
    child.detach();
    spawned.output = std::move(read_end);
    return spawned;
  } catch (const bp::process_error& e) {
    return R::failure(describe_exec_error(e.code().value(), request.exe));
  }
}

}  // namespace launcher::supervisor
