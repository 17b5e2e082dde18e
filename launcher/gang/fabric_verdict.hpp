#pragma once
#include <string>
#include <vector>

#include "gang/fabric_round.hpp"

namespace launcher::gang {

// What the head judges the links against.
struct VerdictInputs {
  std::vector<std::string> pods;  // names by ordinal
  std::string provider;
  double floor = 0;               // bytes/s; 0: no floor (only failures count)
  std::string floor_source;       // "--fabric-min-bandwidth", "instance table (p5.48xlarge)"
};

struct FabricVerdict {
  std::vector<std::string> table;     // one line per link: pod → pod, latency, bandwidth, state
  std::vector<std::string> problems;  // one line per bad link or suspect pod, each with its fix
  bool failed = false;                // a link failed or is below the floor
};

// Pure: the table and what is wrong. A link below the floor names both pods and their devices
// (a pod in two slow links, as client of one and server of the other, is named as the likely
// cause: cordon its node); a failed link names the side that failed and the fix that side
// needs (the tool, the provider, the port, the security group's self rule or the subnet).
FabricVerdict judge_fabric(const std::vector<LinkReport>& reports, const VerdictInputs& in);

// "1.23 GB/s", "226 MB/s", "950 kB/s" (decimal units, as fi_pingpong's MB/sec).
std::string format_rate(double bytes_per_s);

}  // namespace launcher::gang
