#pragma once
#include <vector>

namespace launcher::supervisor {

// Every descriptor of this process numbered `from` or more, read from /proc/self/fd: the list
// mark_close_on_exec falls back on. Made before fork (reading a directory allocates).
std::vector<int> open_descriptors(int from);

// Marks every descriptor from `from` up close-on-exec, so none outlives the next execve (a
// listening socket of the health endpoint held by a raylet would keep its port busy). Marked,
// not closed: until execve succeeds they all still work, Boost.Process's error pipe included,
// so a failed execve is still reported. close_range(CLOSE_RANGE_CLOEXEC) (Linux 5.11), else
// fcntl on each of `listed` (EKS' Amazon Linux 2 runs 5.10). Async-signal-safe.
void mark_close_on_exec(int from, const std::vector<int>& listed);

}  // namespace launcher::supervisor
