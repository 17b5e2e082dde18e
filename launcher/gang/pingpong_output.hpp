#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace launcher::gang {

// One row of fi_pingpong's table (libfabric util/pingpong.c show_perf, the same from 1.17 to
// 2.x): "bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec". MB/sec is bytes moved
// (both directions) per microsecond, i.e. 10^6 bytes/s; usec/xfer is the time of one transfer,
// half a round trip: the one-way latency.
struct PingpongRow {
  std::uint64_t bytes = 0;  // the message size ("64", "1k", "1m": binary multiples; "1.5k" one decimal)
  std::uint64_t sent = 0;
  double seconds = 0;
  double mb_per_s = 0;
  double usec_per_xfer = 0;
};

// All rows of an output, header and anything else skipped.
std::vector<PingpongRow> pingpong_rows(std::string_view output);

// What a link measured: the latency of its smallest message, the bandwidth of its largest.
struct LinkMeasure {
  double latency_us = 0;
  double bandwidth = 0;  // bytes/s
  std::uint64_t message_bytes = 0;  // the message size the bandwidth was measured with
  double seconds = 0;               // fi_pingpong's own time, every size together
};

// The measure of an output with at least one row; else the one line that says why not, from
// fi_pingpong's own messages (see pingpong_problem).
util::Result<LinkMeasure> link_measure(std::string_view output);

// The line of an output that says what went wrong, turned into a reason a person can act on:
// fi_getinfo's -61 (FI_ENODATA) is "provider not available here", a refused or timed-out
// control connection names its cause; otherwise the last error line as fi_pingpong wrote it.
// "" when the output holds no error line.
std::string pingpong_problem(std::string_view output);

}  // namespace launcher::gang
