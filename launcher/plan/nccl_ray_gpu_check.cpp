// The nccl-ray-gpu-isolation check: Ray gives each GPU actor a CUDA_VISIBLE_DEVICES of its
// own GPU, and on NVSwitch hosts some NCCL releases then misbehave. Facts, as upstream gives them:
//   - NVIDIA/nccl#1906 (labelled resolved; fix in PR #2377, not in a release as of 2026-08):
//     single-node NVLS AllGather/ReduceScatter put ranks' data in the wrong order when
//     CUDA_VISIBLE_DEVICES permutes the GPUs: a regression in NCCL 2.26.2, 2.21.5 was right.
//   - NVIDIA/nccl#1749 (NCCL 2.27.3, Ray 2.46): with cuMem on (NCCL's default) and per-process
//     CUDA_VISIBLE_DEVICES, importing peers' cuMem handles makes the first collective take
//     seconds (p2pMap goes through every device).
//   - ray-project/ray#61073, NVIDIA-NeMo/RL#1961/#1963 (p5en, NCCL 2.27.5): allreduce 2400×
//     slower through Ray actors than under torchrun, large ones hang; works under torchrun.
// The fix both upstreams give: RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES=1 (Ray then leaves
// CUDA_VISIBLE_DEVICES alone; each worker calls torch.cuda.set_device(local_rank), as
// NeMo-RL#2252 does), or NCCL_NVLS_ENABLE=0 for the ordering bug alone (NCCL#1906). raylaunch
// sets neither: the application decides how its workers pick GPUs.
#include "plan/fabric_checks.hpp"

#include "fabric/embedded_text.hpp"

namespace launcher {

namespace {

constexpr std::string_view k_first_affected = "2.26.2";  // NCCL#1906: the regression's release

// The NVSwitch hosts among the instance types: 8 GPUs on NVLink switches with NVLS (Hopper and
// later): p5, p5e, p5en, p6 (EC2 accelerated-computing specifications). p5.4xlarge has one GPU.
bool nvswitch_host(std::string_view type) {
  for (std::string_view family : {"p5.48xlarge", "p5e.", "p5en.", "p6-", "p6e-"}) {
    if (type.starts_with(family)) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<Check> check_nccl_ray_gpu_isolation(const NodeFacts& node, const FabricFacts& image, const EnvMap& env) {
  if (!nvswitch_host(node.instance_type) || !image.nccl.found() || image.nccl_version.empty()) {
    return std::nullopt;
  }
  Check c{"nccl-ray-gpu-isolation", CheckStatus::pass, "", ""};
  const std::string nccl = "NCCL " + image.nccl_version + " on " + node.instance_type;
  if (fabric::compare_versions(image.nccl_version, k_first_affected) < 0) {
    c.detail = nccl + ": older than " + std::string(k_first_affected) +
               ", the first release with NVLS's rank-order bug under per-actor CUDA_VISIBLE_DEVICES (NCCL#1906)";
    return c;
  }
  const auto noset = env.find("RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES");
  if (noset != env.end() && noset->second == "1") {
    c.detail = nccl + ": RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES=1, so Ray does not give each actor a "
               "CUDA_VISIBLE_DEVICES of its own (the NCCL#1906/#1749 trigger)";
    return c;
  }
  c.status = CheckStatus::warn;
  c.detail = nccl + " (NVSwitch): Ray gives each GPU actor a CUDA_VISIBLE_DEVICES of its own, which with this "
             "NCCL puts NVLS all-gather results in the wrong rank order (NCCL#1906) and makes the first "
             "collective take seconds with cuMem (NCCL#1749); large all-reduces hang (ray#61073)";
  c.fix = "set RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES=1 and have each worker call "
          "torch.cuda.set_device(local_rank) (NeMo-RL#2252), or at least NCCL_NVLS_ENABLE=0 (NCCL#1906); "
          "nothing to do where the framework sets it for its workers (RLinf does)";
  return c;
}

}  // namespace launcher
