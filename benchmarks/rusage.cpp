// Benchmark helper (not a test): runs a command RUNS times (after WARMUP runs) and prints, as
// JSON, the medians of wall time, CPU time (user + system, every thread) and peak RSS, from
// wait4(2). Linked statically and tiny on purpose: a child's ru_maxrss includes the memory it
// had before exec, i.e. a copy of the parent's, so a Python parent would add ~10 MB to it.
//   bench_rusage RUNS WARMUP CMD [ARGS...]
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct Run {
  double wall_ms;
  double cpu_ms;
  double rss_mb;
  int status;
};

Run run_once(char** argv) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
  return {wall, cpu, static_cast<double>(ru.ru_maxrss) / 1024.0, status};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bench_rusage RUNS WARMUP CMD [ARGS...]\n");
    return 2;
  }
  const int runs = std::atoi(argv[1]);
  const int warmup = std::atoi(argv[2]);
  for (int i = 0; i < warmup; ++i) {
    run_once(argv + 3);
  }
  std::vector<double> wall, cpu, rss;
  int failures = 0;
  for (int i = 0; i < runs; ++i) {
    const Run r = run_once(argv + 3);
    wall.push_back(r.wall_ms);
    cpu.push_back(r.cpu_ms);
    rss.push_back(r.rss_mb);
    failures += r.status != 0 ? 1 : 0;
  }
  std::printf("{\"runs\": %d, \"wall_ms_median\": %.3f, \"cpu_ms_median\": %.3f, \"rss_mb_median\": %.2f, "
              "\"rss_mb_max\": %.2f, \"failures\": %d}\n",
              runs, median(wall), median(cpu), median(rss), *std::max_element(rss.begin(), rss.end()), failures);
  return 0;
}
