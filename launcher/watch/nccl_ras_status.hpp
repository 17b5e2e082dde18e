#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/result.hpp"
#include "watch/nccl_ras_client.hpp"

namespace launcher::watch {

// One rank of a communicator, as the RAS dump names it.
struct RasRank {
  int rank = -1;
  std::string host;  // the node's IP address, as RAS prints it ("" when RAS has no process data)
  int pid = -1;
  int gpu = -1;      // CUDA device
  std::string op;    // the operation kind `ops` counts ("AllReduce"); "" for all kinds together
  std::optional<std::uint64_t> ops;  // operations launched; none when the dump does not say
};

// One NCCL communicator.
struct RasComm {
  std::string hash;           // lowercase hex, no 0x, no leading zeros: the same in JSON and text
  int size = 0;               // ranks in the communicator (0 when the dump does not say)
  std::vector<RasRank> ranks;    // the ranks with counts (JSON: all; text: those the dump names)
  std::vector<RasRank> missing;  // ranks no data came from: unresponsive, or considered dead
  int missing_count = 0;      // may exceed `missing`: text lists only a few
  bool counts_differ = false;  // its ranks launched different numbers of operations
  bool error = false;          // an initialisation or asynchronous error on a rank
  bool finished = false;       // a rank finalized, destroyed or aborted it
  // What changes whenever the communicator moves: its ranks' operation counts (JSON), or its
  // MISMATCH and INCOMPLETE blocks (text). Equal across two polls = no progress in between.
  std::string progress;

  // Waiting for some of its ranks: counts differ or ranks are missing.
  bool waiting() const { return counts_differ || missing_count > 0; }
  // The ranks behind: for each operation kind, those at its lowest count; then the missing.
  std::vector<RasRank> lagging() const;
};

// What one status dump says about the job.
struct RasStatus {
  RasFormat format = RasFormat::text;
  std::string nccl_version;       // "2.30.4"
  int communicators = 0;          // all of them (text: from the summary table)
  std::vector<RasComm> comms;     // JSON: every communicator; text: those with errors or warnings
  int dead_processes = 0;         // processes RAS considers dead (unreachable)
  std::vector<std::string> dead;  // "process 4242 on node 10.0.0.7" (text: the few it lists)
};

// Parses a dump of either format (src/ras/client_support.cc, v2.30.4: rasClientRunComms for
// text, rasDumpCommsToJSON for JSON; text's layout is the same since 2.24). Fails with one line
// when the body is neither ("not an NCCL RAS status dump: …").
util::Result<RasStatus> parse_ras_status(const RasDump& dump);

// "rank 7 (GPU 3, process 4242 on node 10.0.0.7) at AllReduce 99"
std::string describe_rank(const RasRank& r);

}  // namespace launcher::watch
