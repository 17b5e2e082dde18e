#include <catch2/catch.hpp>

#include "gang/pingpong_output.hpp"

using namespace launcher::gang;

namespace {

// fi_pingpong 1.17.0 (Debian 12's libfabric-bin), -p tcp -e rdm -I 20, as it printed here.
constexpr const char* k_all_sizes =
    "bytes   #sent   #ack     total       time     MB/sec    usec/xfer   Mxfers/sec\n"
    "64      20      =20      2.5k        0.09s      0.03    2237.05       0.00\n"
    "256     20      =20      10k         0.04s      0.26     967.17       0.00\n"
    "1k      20      =20      40k         0.06s      0.63    1619.30       0.00\n"
    "4k      20      =20      160k        0.06s      2.68    1529.50       0.00\n"
    "64k     20      =20      2.5m        0.16s     15.99    4098.58       0.00\n"
    "1m      20      =20      40m         0.22s    187.43    5594.35       0.00\n";

}  // namespace

TEST_CASE("fi_pingpong's table: every size row, in bytes", "[gang][pingpong]") {
  const auto rows = pingpong_rows(k_all_sizes);
  REQUIRE(rows.size() == 6);
  CHECK(rows[0].bytes == 64);
  CHECK(rows[2].bytes == 1024);
  CHECK(rows[5].bytes == 1024 * 1024);
  CHECK(rows[5].sent == 20);
  CHECK(rows[5].seconds == Approx(0.22));
  CHECK(rows[5].mb_per_s == Approx(187.43));
  CHECK(rows[0].usec_per_xfer == Approx(2237.05));
}

TEST_CASE("a link's measure: the smallest message's latency, the largest one's bandwidth", "[gang][pingpong]") {
  const auto m = link_measure(k_all_sizes);
  REQUIRE(m);
  CHECK(m->latency_us == Approx(2237.05));
  CHECK(m->bandwidth == Approx(187.43e6));  // MB/sec is 10^6 bytes/s
  CHECK(m->message_bytes == 1024 * 1024);
}

TEST_CASE("sizes and counts with fractions and suffixes", "[gang][pingpong]") {
  const auto rows = pingpong_rows("1.5k    10k     =10k     15m        0.50s     30.00      51.20       0.02\n");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].bytes == 1536);
  CHECK(rows[0].sent == 10'000);
}

TEST_CASE("no measurement: the reason from fi_pingpong's own error lines", "[gang][pingpong]") {
  const auto refused = link_measure("[error] util/pingpong.c:408 : failed to connect: Connection refused\n");
  REQUIRE_FALSE(refused);
  CHECK(refused.error() == "nothing listens on the peer's control port (Connection refused)");
  const auto no_provider = link_measure("fi_getinfo(): util/pingpong.c:1302, ret=-61 (No data available)\n");
  REQUIRE_FALSE(no_provider);
  CHECK(no_provider.error().find("provider is not available") != std::string::npos);
  const auto taken = link_measure("bind(): util/pingpong.c:493, ret=-98 (Address already in use)\n");
  CHECK(taken.error() == "the control port is taken (Address already in use)");
  CHECK(link_measure("").error() == "fi_pingpong printed no measurement");
  // Any other error line, as written (made printable).
  CHECK(pingpong_problem("3s timeout expired\n") == "3s timeout expired");
}
