#include <catch2/catch.hpp>

#include <set>

#include "gang/ring.hpp"

using namespace launcher::gang;

TEST_CASE("the ring: every pod serves one link and runs one, so every link runs at once", "[gang][ring]") {
  for (const int n : {3, 6, 12, 100}) {
    const auto links = ring_links(n);
    REQUIRE(links.size() == static_cast<std::size_t>(n));
    std::set<int> clients;
    std::set<int> servers;
    for (const Link& l : links) {
      CHECK(l.server == (l.client + 1) % n);
      clients.insert(l.client);
      servers.insert(l.server);
    }
    // Each pod once as client and once as server: one pingpong pair per pod whatever n is.
    CHECK(clients.size() == static_cast<std::size_t>(n));
    CHECK(servers.size() == static_cast<std::size_t>(n));
  }
}

TEST_CASE("the ring: two pods test one link, one pod none", "[gang][ring]") {
  CHECK(ring_links(1).empty());
  CHECK(ring_links(2) == std::vector<Link>{{0, 1}});
  const RingPart head = ring_part(0, 2);
  CHECK_FALSE(head.serves);
  CHECK(head.connects_to == 1);
  const RingPart worker = ring_part(1, 2);
  CHECK(worker.serves == 0);
  CHECK_FALSE(worker.connects_to);
}

TEST_CASE("the ring: a pod's part names its neighbours", "[gang][ring]") {
  const RingPart head = ring_part(0, 3);
  CHECK(head.serves == 2);       // the last pod tests the head
  CHECK(head.connects_to == 1);  // the head tests pod 1
  const RingPart last = ring_part(2, 3);
  CHECK(last.serves == 1);
  CHECK(last.connects_to == 0);
}
