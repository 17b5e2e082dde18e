#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "util/host_fs.hpp"

namespace launcher::watch {

// One EFA device's port counters, as the kernel's efa driver exports them under
// /sys/class/infiniband/<dev>/ports/1/hw_counters/ (Linux drivers/infiniband/hw/efa/efa_verbs.c,
// efa_port_stats_descs: tx_bytes, rx_bytes, send_bytes, recv_bytes, rdma_read_bytes, …).
// tx/rx count every byte the device moved; send/recv the two-sided SEND traffic libfabric's efa
// provider uses for NCCL's messages. rdma_write_bytes is left out on purpose: EFA does not count
// NCCL's traffic there (issue 27), so a watch on it would call a busy fabric idle.
struct EfaCounters {
  std::string device;        // "rdmap79s0"
  bool readable = false;     // every counter below was read and parsed
  std::uint64_t tx_bytes = 0;
  std::uint64_t rx_bytes = 0;
  std::uint64_t send_bytes = 0;
  std::uint64_t recv_bytes = 0;

  std::uint64_t total() const { return tx_bytes + rx_bytes + send_bytes + recv_bytes; }
};

// The counters of each of `devices` (the pod's EFA devices, as the plan found them), read through
// `fs` (its root prefix lets tests use node trees), one entry per device in the given order. A
// device whose counters are absent or not numbers comes back with `readable` false: a reader of
// the result decides what that means. Bounded: HostFs reads only small regular files.
std::vector<EfaCounters> read_efa_counters(const util::HostFs& fs, const std::vector<std::string>& devices);

}  // namespace launcher::watch
