#include "watch/efa_counters.hpp"

#include "util/parse.hpp"

namespace launcher::watch {

namespace {

// The counters raylaunch reads, and where each is kept. The kernel writes each as one decimal
// number and a newline.
struct Counter {
  const char* file;
  std::uint64_t EfaCounters::*field;
};
constexpr Counter k_counters[] = {
    {"tx_bytes", &EfaCounters::tx_bytes},
    {"rx_bytes", &EfaCounters::rx_bytes},
    {"send_bytes", &EfaCounters::send_bytes},
    {"recv_bytes", &EfaCounters::recv_bytes},
};

// sysfs counters are u64; parse_int's range is signed, which a counter reaches only after
// 8 EiB: a larger value reads as unreadable rather than wrapping.
constexpr std::int64_t k_max_counter = INT64_MAX;

}  // namespace

std::vector<EfaCounters> read_efa_counters(const util::HostFs& fs, const std::vector<std::string>& devices) {
  std::vector<EfaCounters> out;
  out.reserve(devices.size());
  for (const std::string& device : devices) {
    EfaCounters c;
    c.device = device;
    c.readable = true;
    const std::string dir = "/sys/class/infiniband/" + device + "/ports/1/hw_counters/";
    for (const Counter& counter : k_counters) {
      const auto line = fs.read_line(dir + counter.file);
      const auto value = line ? util::parse_int(*line, 0, k_max_counter) : util::Result<std::int64_t>::failure("");
      if (!value) {
        c.readable = false;
        break;
      }
      c.*counter.field = static_cast<std::uint64_t>(*value);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace launcher::watch
