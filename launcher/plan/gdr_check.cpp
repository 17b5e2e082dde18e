// GPUDirect RDMA: on instance types where aws-ofi-nccl requires it, is there a way for the EFA
// device to reach GPU memory? The ways, and where each fact comes from:
//   - the EFA driver's own P2P provider: /sys/class/infiniband/<dev>/device/p2p names the first
//     one it can use, "NVIDIA" (nvidia.ko's nvidia_p2p_* symbols) or "NVIDIA peermem" (through
//     efa_nv_peermem), empty with none (amzn-drivers kernel/linux/efa: efa_sysfs.c,
//     efa_nvmem_impl.h; EFA driver r2.6.0); device/gdr before it (r1.9.0, 0 without NVIDIA
//     symbols since r1.14.1);
//   - efa_nv_peermem loaded: the link between NVIDIA's open drivers and the EFA driver
//     (amzn-drivers kernel/linux/efa_nv_peermem/README);
//   - dma-buf: kernel 5.12 or later (RDMA dma-buf import; aws-ofi-nccl src/nccl_ofi_dmabuf.cpp)
//     and a GPU driver that exports dma-bufs, which we take to be NVIDIA's open kernel module
//     (inference from NVIDIA's GPU Operator documentation, which pairs DMA-BUF with it), unless
//     disabled (FI_HMEM_CUDA_USE_DMABUF=0: libfabric src/hmem_cuda.c; OFI_NCCL_DISABLE_DMABUF=1:
//     aws-ofi-nccl include/nccl_ofi_param.h).
// nvidia_peermem serves the peer-memory API of Mellanox OFED's ib_core; the EFA driver takes
// GPU pages through nvidia_p2p_* instead (efa_nvmem_impl.h), so it is reported, not counted.
// Without GDR, aws-ofi-nccl ≥ 1.7.4 refuses EFA on these instances ("GDR disabled on
// GDR-supported instance type", src/platform-aws.cpp:819; RELEASENOTES v1.7.4-aws).
#include <algorithm>
#include <cctype>

#include "fabric/embedded_text.hpp"
#include "plan/fabric_checks.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

bool disabled(const EnvMap& env, const char* name, const std::vector<std::string>& values) {
  const auto it = env.find(name);
  if (it == env.end()) {
    return false;
  }
  std::string v = it->second;
  for (char& ch : v) {
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return std::find(values.begin(), values.end(), v) != values.end();
}

std::string driver_kind(const std::string& version_line) {
  if (version_line.empty()) {
    return "NVIDIA driver unknown (no /proc/driver/nvidia/version)";
  }
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.51.03  Release Build …" or
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  …"
  const bool open = version_line.find("Open Kernel Module") != std::string::npos;
  const auto words = util::split_words(version_line);
  std::string version;
  for (const std::string& w : words) {
    if (!w.empty() && std::isdigit(static_cast<unsigned char>(w.front())) != 0 && w.find('.') != std::string::npos) {
      version = w;
      break;
    }
  }
  return std::string("NVIDIA ") + (open ? "open" : "proprietary") + " kernel module" +
         (version.empty() ? "" : " " + version);
}

}  // namespace

bool gdr_required(std::string_view type) {
  if (type == "p4d.24xlarge" || type == "p4de.24xlarge") {
    return true;
  }
  if (type == "p5.4xlarge" || type.size() < 2 || type.front() != 'p') {
    return false;
  }
  // "^p([5-9]|[0-9]{2,}).*": p5, p5e, p5en, p6-b200, p6-b300, p6e-gb200 and later families.
  std::size_t digits = 1;
  while (digits < type.size() && std::isdigit(static_cast<unsigned char>(type[digits])) != 0) {
    ++digits;
  }
  return digits > 2 || (digits == 2 && type[1] >= '5');
}

Check check_gdr(const NodeFacts& node, const FabricFacts& image, const EnvMap& env) {
  Check c{"gdr", CheckStatus::pass, "", ""};
  if (node.instance_type.empty() || !gdr_required(node.instance_type)) {
    c.detail = (node.instance_type.empty() ? std::string("instance type unknown") : node.instance_type) +
               ": aws-ofi-nccl does not require GPUDirect RDMA here; not checked";
    return c;
  }
  if (node.gpus() == 0) {
    c.detail = node.instance_type + ": no GPUs in this pod; not checked";
    return c;
  }
  if (!image.inspected) {
    c.detail = node.instance_type + ": node not inspected";
    return c;
  }
  const GdrFacts& g = image.gdr;
  for (const auto& [dev, provider] : g.efa_p2p) {
    if (!provider.empty()) {
      c.detail = node.instance_type + ": the EFA driver reaches GPU memory through its P2P provider \"" +
                 util::printable(provider) + "\" (/sys/class/infiniband/" + dev + "/device/p2p)";
      return c;
    }
  }
  for (const auto& [dev, flag] : g.efa_gdr) {
    if (flag == "1") {
      c.detail = node.instance_type + ": the EFA driver has GPUDirect support (/sys/class/infiniband/" + dev +
                 "/device/gdr = 1)";
      return c;
    }
  }
  if (g.efa_nv_peermem) {
    c.detail = node.instance_type + ": efa_nv_peermem is loaded (NVIDIA open driver ↔ EFA driver)";
    return c;
  }
  const bool kernel_ok = !g.kernel_release.empty() && fabric::compare_versions(g.kernel_release, "5.12") >= 0;
  const bool open_driver = g.nvidia_driver.find("Open Kernel Module") != std::string::npos;
  const bool dmabuf_off = disabled(env, "FI_HMEM_CUDA_USE_DMABUF", {"0", "false", "no", "off"}) ||
                          disabled(env, "OFI_NCCL_DISABLE_DMABUF", {"1", "true", "yes", "on"});
  const std::string kernel = g.kernel_release.empty() ? "kernel unknown" : "kernel " + g.kernel_release;
  if (kernel_ok && open_driver && !dmabuf_off) {
    c.detail = node.instance_type + ": dma-buf (" + kernel + " ≥ 5.12, " + driver_kind(g.nvidia_driver) +
               "; inference: CUDA exports dma-bufs with the open module)";
    return c;
  }

  std::vector<std::string> why;
  if (!g.efa_p2p.empty()) {
    why.push_back("the EFA driver has no NVIDIA P2P provider (device/p2p is empty)");
  } else if (!g.efa_gdr.empty()) {
    why.push_back("the EFA driver has no GPUDirect support (device/gdr = 0)");
  } else {
    why.push_back("no EFA P2P provider file (EFA driver " + (g.efa_driver.empty() ? std::string("in-tree or unknown")
                                                                                    : g.efa_driver) + ")");
  }
  why.push_back("efa_nv_peermem not loaded");
  why.push_back(kernel + (kernel_ok ? "" : " (dma-buf needs 5.12)"));
  why.push_back(driver_kind(g.nvidia_driver) + (open_driver ? "" : " (dma-buf needs the open module)"));
  if (dmabuf_off) {
    why.push_back("dma-buf disabled by FI_HMEM_CUDA_USE_DMABUF or OFI_NCCL_DISABLE_DMABUF");
  }
  if (g.nvidia_peermem) {
    why.push_back("nvidia_peermem is loaded, but the EFA driver does not use it");
  }
  const bool old_plugin = !image.plugin_version.empty() && fabric::compare_versions(image.plugin_version, "1.7.4") < 0;
  c.status = CheckStatus::warn;
  c.detail = node.instance_type + ": no way for EFA to reach GPU memory found: " + util::join(why, "; ") +
             (old_plugin ? ". NCCL will disable GDR and stage every transfer through host memory"
                         : ". NCCL will disable GDR, and aws-ofi-nccl then refuses EFA on this instance (\"GDR "
                           "disabled on GDR-supported instance type\"): TCP sockets, or a failure with NCCL_NET=Libfabric");
  c.fix = "load efa_nv_peermem on the node (EFA installer, with the NVIDIA open driver), or run a kernel ≥ 5.12 with "
          "the NVIDIA open kernel module for dma-buf (the EKS AL2023 GPU AMIs); never hide it with "
          "OFI_NCCL_DISABLE_GDR_REQUIRED_CHECK=1";
  return c;
}

}  // namespace launcher
