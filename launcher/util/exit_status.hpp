#pragma once
#include <string>

namespace launcher::util {

// A waitpid(2) status as shells report it: the exit code, or 128 + N when killed by signal N.
int exit_code_of_status(int wait_status);

// "exited with 3", "killed by SIGKILL", for log lines and termination messages.
std::string describe_status(int wait_status);

// "SIGTERM" for 15; "signal 64" when the number has no name.
std::string signal_name(int signo);

}  // namespace launcher::util
