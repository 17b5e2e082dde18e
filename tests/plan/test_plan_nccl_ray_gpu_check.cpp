#include <catch2/catch.hpp>

#include "plan/fabric_checks.hpp"

using namespace launcher;

namespace {

// Facts built by hand: an instance type and the NCCL the image would load.
struct Host {
  NodeFacts node;
  FabricFacts image;
  Host(const std::string& type, const std::string& nccl_version) {
    node.instance_type = type;
    image.inspected = true;
    image.nccl.name = "libnccl.so.2";
    image.nccl.path = "/usr/lib/x86_64-linux-gnu/libnccl.so.2";
    image.nccl_version = nccl_version;
  }
};

}  // namespace

TEST_CASE("NVSwitch hosts with an affected NCCL warn, with the fix, and set nothing", "[fabric][checks][nvswitch]") {
  for (const char* type : {"p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge"}) {
    const Host h(type, "2.27.5");
    const auto c = check_nccl_ray_gpu_isolation(h.node, h.image, {});
    INFO(type);
    REQUIRE(c);
    CHECK(c->name == "nccl-ray-gpu-isolation");
    CHECK(c->status == CheckStatus::warn);
    CHECK(c->detail.starts_with("NCCL 2.27.5 on " + std::string(type) + " (NVSwitch): "));
    CHECK(c->detail.find("NCCL#1906") != std::string::npos);
    CHECK(c->fix.starts_with("set RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES=1"));
  }
}

TEST_CASE("the NCCL before the regression, or Ray told not to mask GPUs: passes", "[fabric][checks][nvswitch]") {
  const Host old_nccl("p5en.48xlarge", "2.21.5");
  const auto before = check_nccl_ray_gpu_isolation(old_nccl.node, old_nccl.image, {});
  REQUIRE(before);
  CHECK(before->status == CheckStatus::pass);
  CHECK(before->detail.find("older than 2.26.2") != std::string::npos);

  const Host first("p5en.48xlarge", "2.26.2");
  CHECK(check_nccl_ray_gpu_isolation(first.node, first.image, {})->status == CheckStatus::warn);
  const auto noset =
      check_nccl_ray_gpu_isolation(first.node, first.image, {{"RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES", "1"}});
  REQUIRE(noset);
  CHECK(noset->status == CheckStatus::pass);
}

TEST_CASE("no NVSwitch, no NCCL or no version known: no check at all", "[fabric][checks][nvswitch]") {
  for (const char* type : {"p4de.24xlarge", "p5.4xlarge", "g6.48xlarge", ""}) {
    const Host h(type, "2.27.5");
    INFO(type);
    CHECK_FALSE(check_nccl_ray_gpu_isolation(h.node, h.image, {}));
  }
  Host unknown("p5.48xlarge", "");
  CHECK_FALSE(check_nccl_ray_gpu_isolation(unknown.node, unknown.image, {}));
  Host none("p5.48xlarge", "2.27.5");
  none.image.nccl.path.clear();
  CHECK_FALSE(check_nccl_ray_gpu_isolation(none.node, none.image, {}));
}
