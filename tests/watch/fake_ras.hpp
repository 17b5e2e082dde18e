#pragma once
// Runs the FAKE NCCL RAS server (tests/fakes/nccl_ras/fake_ras.py) for the client's tests: one
// process per test on a port of its own, stopped (SIGTERM, then reaped) when the test ends.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fixtures.hpp"

extern char** environ;

namespace fake_ras {

// A job of `size` ranks on two nodes; rank `behind` (if >= 0) is one AllReduce behind.
inline std::string job_json(int size, int behind, std::uint64_t ops = 100) {
  std::string ranks;
  for (int r = 0; r < size; ++r) {
    ranks += std::string(ranks.empty() ? "" : ",") + "{\"rank\": " + std::to_string(r) + ", \"host\": \"10.0.0." +
             std::to_string(1 + r * 2 / size) + "\", \"pid\": " + std::to_string(1000 + r) + ", \"gpu\": " +
             std::to_string(r % 8) + ", \"counts\": {\"AllReduce\": " + std::to_string(r == behind ? ops - 1 : ops) +
             ", \"Broadcast\": 2}}";
  }
  return "{\"comms\": [{\"hash\": \"7f3a2b1c9d8e0f11\", \"size\": " + std::to_string(size) + ", \"ranks\": [" + ranks +
         "]}]}";
}

class Server : public fixtures::TempDir {
 public:
  // `args`: fake_ras.py's options beyond --port-file and --job ("--nccl", "2.26.5", "--fault", "stall").
  explicit Server(const std::string& job, std::vector<std::string> args = {}) {
    std::ofstream(path() + "/job.json") << job;
    std::vector<std::string> argv = {"/usr/bin/python3", RAYLAUNCH_TESTS_DIR "/fakes/nccl_ras/fake_ras.py",
                                     "--port-file", path() + "/port", "--job", path() + "/job.json"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> raw;
    for (std::string& a : argv) {
      raw.push_back(a.data());
    }
    raw.push_back(nullptr);
    if (posix_spawn(&m_pid, raw[0], nullptr, nullptr, raw.data(), environ) != 0) {
      throw std::runtime_error("cannot start fake_ras.py");
    }
    for (int i = 0; i < 100 && !std::filesystem::exists(path() + "/port"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::ifstream(path() + "/port") >> m_port;
    if (m_port == 0) {
      throw std::runtime_error("fake_ras.py did not start");
    }
  }
  ~Server() {
    ::kill(m_pid, SIGTERM);
    int status = 0;
    ::waitpid(m_pid, &status, 0);
  }
  int port() const { return m_port; }
  void set_job(const std::string& job) const {
    std::ofstream(path() + "/job.tmp") << job;
    std::filesystem::rename(path() + "/job.tmp", path() + "/job.json");
  }

 private:
  pid_t m_pid = -1;
  int m_port = 0;
};

}  // namespace fake_ras
