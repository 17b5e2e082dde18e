#include "watch/efa_watch.hpp"

#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::watch {

namespace {

constexpr std::size_t k_devices_named = 4;  // a p5 has 32: the line names the first few

const EfaCounters* find(const std::vector<EfaCounters>& sample, const std::string& device) {
  for (const EfaCounters& c : sample) {
    if (c.device == device) {
      return &c;
    }
  }
  return nullptr;
}

}  // namespace

const char* to_string(EfaState s) {
  switch (s) {
    case EfaState::waiting:
      return "waiting";
    case EfaState::moving:
      return "moving";
    case EfaState::flat:
      return "flat";
    case EfaState::unreadable:
      return "unreadable";
  }
  return "?";
}

std::string EfaWatch::device_list(const std::vector<EfaCounters>& sample) const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < sample.size() && i < k_devices_named; ++i) {
    names.push_back(util::printable(sample[i].device));
  }
  std::string out = util::join(names, ", ");
  if (sample.size() > k_devices_named) {
    out += " and " + std::to_string(sample.size() - k_devices_named) + " more";
  }
  return out;
}

EfaVerdict EfaWatch::add(const std::vector<EfaCounters>& sample, std::chrono::milliseconds at) {
  EfaVerdict v;
  const double seconds = static_cast<double>((at - m_last_at).count()) / 1000.0;
  bool any_readable = false;
  bool moved = false;
  for (const EfaCounters& now : sample) {
    EfaDeviceRate rate{now.device, now.readable, 0, now.total()};
    const EfaCounters* before = find(m_last, now.device);
    any_readable = any_readable || now.readable;
    // A counter that went down was reset (the driver reloaded): a new base, not traffic.
    if (now.readable && before != nullptr && before->readable && now.total() > before->total()) {
      moved = true;
      rate.bytes_per_second = seconds > 0 ? static_cast<double>(now.total() - before->total()) / seconds : 0;
    }
    v.rates.push_back(std::move(rate));
  }
  m_last = sample;
  m_last_at = at;

  const std::string devices = util::plural(static_cast<long>(sample.size()), "EFA device") + " (" +
                              device_list(sample) + ")";
  const auto verdict = [&](EfaState state) {
    m_state = state;
    v.state = state;
    return v;
  };
  if (!any_readable) {
    if (!m_unreadable_said) {
      m_unreadable_said = true;
      v.warn = "the EFA watch cannot read the port counters of any of the pod's " + devices +
               " (/sys/class/infiniband/<dev>/ports/1/hw_counters): it cannot tell EFA from a TCP fallback";
    }
    return verdict(EfaState::unreadable);
  }
  m_unreadable_said = false;
  if (moved) {
    if (m_flat_said) {
      v.info = "EFA traffic again on the pod's " + devices + " after " +
               util::format_elapsed(at - m_last_moved.value_or(std::chrono::milliseconds(0)));
    }
    m_last_moved = at;
    m_flat_said = false;
    return verdict(EfaState::moving);
  }
  const std::chrono::milliseconds quiet = at - m_last_moved.value_or(std::chrono::milliseconds(0));
  if (quiet < m_idle_after) {
    return verdict(m_last_moved ? EfaState::moving : EfaState::waiting);
  }
  if (!m_flat_said) {
    m_flat_said = true;
    if (!m_last_moved) {
      // The NCCL fallback is silent; these are the settings that make it loud (aws-ofi-nccl's
      // plugin is named "Libfabric", nccl_ofi_interface_nvidia.cpp; NCCL_NET does not fall back).
      v.warn = "no traffic on any of the pod's " + devices + " in the " + util::format_elapsed(at) +
               " the command has run (hw_counters tx/rx/send/recv bytes flat): NCCL is likely on TCP sockets, not "
               "EFA (fix: look for NET/OFI or NET/Socket in the command's log with NCCL_DEBUG=INFO; NCCL_NET=Libfabric "
               "makes NCCL fail instead of falling back)";
    } else {
      v.warn = "no traffic on any of the pod's " + devices + " for " + util::format_elapsed(quiet) +
               " (there was before): the collectives are idle or stuck, or NCCL moved to sockets";
    }
  }
  return verdict(EfaState::flat);
}

}  // namespace launcher::watch
