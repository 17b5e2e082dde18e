// The pod's RDMA devices: are their ports ACTIVE (rdma-ports), and when the pod has fewer EFA
// devices than expected, what limits it (the efa check's explanation). Facts:
// node_facts_devices.cpp; ../shared/reference/fabric-and-node-checks.md §4.
#include <algorithm>

#include "plan/node_checks.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

constexpr std::size_t k_shown = 3;

// The port's physical state number ("2: Polling" → 2; drivers/infiniband/core/sysfs.c prints
// "%u: %s"); 0 when unreadable.
int code_of(const std::string& state) {
  const std::size_t colon = state.find(':');
  int n = 0;
  for (std::size_t i = 0; i < colon && i < state.size(); ++i) {
    if (state[i] < '0' || state[i] > '9' || n > 100) {
      return 0;
    }
    n = n * 10 + (state[i] - '0');
  }
  return colon == std::string::npos ? 0 : n;
}

std::string single_node_note(int nodes) {
  return nodes > 1 ? "" : " (one node: NCCL needs no network between its GPUs, so only a warning)";
}

}  // namespace

// NCCL's own IB transport uses only ACTIVE ports (src/transport/net_ib.cc: "if
// (portAttr.state != IBV_PORT_ACTIVE) continue;"): a port left in DOWN, INIT or ARMED is one
// NIC fewer, and with none ACTIVE there is no RDMA network at all. The EFA driver reports its
// port ACTIVE with phys_state LinkUp whenever the device is up (Linux
// drivers/infiniband/hw/efa/efa_verbs.c, efa_query_port): an EFA port in any other state is a
// device that is not working.
std::optional<Check> check_rdma_ports(const NodeFacts& node, const Expectations& expect) {
  const std::vector<RdmaPort>& ports = node.devices.ports;
  if (ports.empty()) {
    return std::nullopt;  // no verbs device in this pod: nothing to judge
  }
  std::vector<const RdmaPort*> down;
  for (const RdmaPort& p : ports) {
    if (!p.active()) {
      down.push_back(&p);
    }
  }
  Check c{"rdma-ports", CheckStatus::pass, "", ""};
  if (down.empty()) {
    c.detail = "all " + util::plural(static_cast<long>(ports.size()), "port") + " of this pod's RDMA devices ACTIVE";
    return c;
  }
  std::vector<std::string> parts;
  bool efa = false;
  bool polling = false;  // no link partner, or disabled: the cable or the switch side
  for (std::size_t i = 0; i < down.size(); ++i) {
    const RdmaPort& p = *down[i];
    efa = efa || p.efa;
    const int phys = code_of(p.phys_state);
    polling = polling || (phys >= 1 && phys <= 3);  // Sleep, Polling, Disabled
    if (i < k_shown) {
      parts.push_back(util::printable(p.device) + " port " + util::printable(p.port) + " is " +
                      (p.state.empty() ? "unreadable" : util::printable(p.state)) +
                      (p.phys_state.empty() ? "" : " (phys_state " + util::printable(p.phys_state) + ")"));
    }
  }
  if (down.size() > k_shown) {
    parts.push_back("and " + std::to_string(down.size() - k_shown) + " more");
  }
  const bool none_left = down.size() == ports.size();
  c.status = none_left && expect.nodes > 1 ? CheckStatus::fail : CheckStatus::warn;
  c.detail = util::join(parts, "; ") + "; " + std::to_string(down.size()) + " of " + std::to_string(ports.size()) +
             " ports not ACTIVE: " +
             (none_left ? "no RDMA network is left, NCCL falls back to TCP sockets or stops"
                        : "NCCL uses only ACTIVE ports, so this pod has fewer NICs") +
             single_node_note(expect.nodes);
  if (efa) {
    c.fix = "the EFA driver reports a working device ACTIVE: cordon the node and replace the instance (a stop and "
            "start moves it to other hardware)";
  } else if (polling) {
    c.fix = "the link is down: check the cable and the switch port of each device named";
  } else {
    c.fix = "the link is up but not activated (INIT or ARMED): the InfiniBand subnet manager (opensm, UFM) has not "
            "configured the port";
  }
  return c;
}

// Which of the three limits the pod: the device plugin (it handed out non-EFA verbs devices:
// plugins before 0.5.10 counted p6-b200's mlx5 ibp* devices, sagemaker-hyperpod-cli#282), the
// node (fewer EFA devices than expected are attached to it: Karpenter attaches EFA interfaces
// only for pods that request vpc.amazonaws.com/efa), or the pod's request (the device plugin
// hands a pod exactly what it requests). The node's count is /sys/class/infiniband, which
// lists every device of the node in RDMA's default shared namespace mode (§4.1).
std::optional<EfaShortfall> efa_shortfall(const NodeFacts& node, const Expectations& expect) {
  const int pod = node.efa();
  const int on_node = static_cast<int>(node.devices.node_efa.size());
  const int want = expect.efa;
  if (on_node < pod || pod >= want) {
    return std::nullopt;  // the node's devices are unknown (facts built by hand), or no shortfall
  }
  const std::string request = "request vpc.amazonaws.com/efa: " + std::to_string(want);
  if (!node.other_uverbs.empty() && pod < on_node) {
    return EfaShortfall{
        "limited by the device plugin: it gave this pod non-EFA verbs devices (" + util::join(node.other_uverbs, ", ") +
            ") while the node has " + std::to_string(on_node) + " EFA devices",
        "upgrade the EFA device plugin to 0.5.10 or later, which hands out only EFA devices "
        "(sagemaker-hyperpod-cli#282)"};
  }
  if (on_node < want) {
    return EfaShortfall{
        "limited by the node: it has only " + std::to_string(on_node) + " (/sys/class/infiniband)",
        request + " so that Karpenter launches the node with its EFA interfaces (it attaches them only for pods "
                  "that request them), or list them in the node group's launch template"};
  }
  if (pod == 0) {
    return EfaShortfall{"limited by the pod: the node has " + std::to_string(on_node) +
                            " EFA devices, none in this pod's /dev/infiniband",
                        request + " and run the EFA device plugin on the node (or claim them with the EFA DRA driver)"};
  }
  return EfaShortfall{"limited by the pod's request: the node has " + std::to_string(on_node) +
                          " EFA devices and the device plugin gives a pod what it requests",
                      expect.efa_set ? request + ", as " + expect.efa_source + " says"
                                     : request + ", or set RAYLAUNCH_EFA=" + std::to_string(pod) +
                                           " if " + std::to_string(pod) + " is meant"};
}

}  // namespace launcher
