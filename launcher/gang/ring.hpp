#pragma once
#include <optional>
#include <string>
#include <vector>

namespace launcher::gang {

// One link of the gang fabric check: the pod `client` runs fi_pingpong against the one
// `server` runs (ordinals).
struct Link {
  int client = 0;
  int server = 0;
  bool operator==(const Link&) const = default;
};

// The links of a gang of `nodes` pods: a ring, pod i the client of i+1 (mod nodes). Every pod
// is the server of one link and the client of one, so every link runs at once and the wall
// time does not grow with `nodes` (one pingpong pair per pod, whatever the gang's size); every
// pod's fabric is exercised in both directions of its traffic (it sends to one neighbour and
// receives from the other). Two pods: one link (0 → 1), not the same pair twice. One pod: none.
std::vector<Link> ring_links(int nodes);

// What pod `ordinal` does in the ring: the link it serves (its client's ordinal) and the link
// it runs as client (its server's ordinal); nullopt where it has none.
struct RingPart {
  std::optional<int> serves;      // the client that connects to this pod's server
  std::optional<int> connects_to; // the server this pod's client connects to
};
RingPart ring_part(int ordinal, int nodes);

// Pod `ordinal`'s name from `pods` (names by ordinal), or "pod N" when it has none.
std::string pod_name(const std::vector<std::string>& pods, int ordinal);

}  // namespace launcher::gang
