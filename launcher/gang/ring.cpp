#include "gang/ring.hpp"

namespace launcher::gang {

std::vector<Link> ring_links(int nodes) {
  std::vector<Link> links;
  if (nodes < 2) {
    return links;
  }
  if (nodes == 2) {
    links.push_back({0, 1});
    return links;
  }
  for (int i = 0; i < nodes; ++i) {
    links.push_back({i, (i + 1) % nodes});
  }
  return links;
}

RingPart ring_part(int ordinal, int nodes) {
  RingPart part;
  for (const Link& link : ring_links(nodes)) {
    if (link.client == ordinal) {
      part.connects_to = link.server;
    }
    if (link.server == ordinal) {
      part.serves = link.client;
    }
  }
  return part;
}

std::string pod_name(const std::vector<std::string>& pods, int ordinal) {
  return ordinal >= 0 && ordinal < static_cast<int>(pods.size()) ? pods[static_cast<std::size_t>(ordinal)]
                                                                 : "pod " + std::to_string(ordinal);
}

}  // namespace launcher::gang
