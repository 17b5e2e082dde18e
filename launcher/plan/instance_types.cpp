#include "plan/instance_types.hpp"

#include <array>

namespace launcher {

namespace {

struct Row {
  std::string_view type;
  InstanceShape shape;
};

// GPU and EFA counts per full instance. Sources: ../shared/reference/fabric-and-node-checks.md
// §4.3 (meta-pytorch/torchx named_resources_aws.py; sample-rlinf-on-eks MPIJob comments;
// sagemaker-hyperpod-cli#282 for p6-b200) and the AWS EC2 accelerated-computing instance
// specifications (GPU counts; EFA on g5/g6 from 8xlarge up, one device each).
constexpr std::array<Row, 22> k_table = {{
    {"p4d.24xlarge", {8, 4}},
    {"p4de.24xlarge", {8, 4}},
    {"p5.48xlarge", {8, 32}},
    {"p5e.48xlarge", {8, 32}},
    {"p5en.48xlarge", {8, 16}},
    {"p6-b200.48xlarge", {8, 8}},
    {"g5.xlarge", {1, 0}},
    {"g5.2xlarge", {1, 0}},
    {"g5.4xlarge", {1, 0}},
    {"g5.8xlarge", {1, 1}},
    {"g5.12xlarge", {4, 1}},
    {"g5.16xlarge", {1, 1}},
    {"g5.24xlarge", {4, 1}},
    {"g5.48xlarge", {8, 1}},
    {"g6.xlarge", {1, 0}},
    {"g6.2xlarge", {1, 0}},
    {"g6.4xlarge", {1, 0}},
    {"g6.8xlarge", {1, 1}},
    {"g6.12xlarge", {4, 1}},
    {"g6.16xlarge", {1, 1}},
    {"g6.24xlarge", {4, 1}},
    {"g6.48xlarge", {8, 1}},
}};

}  // namespace

std::optional<InstanceShape> instance_shape(std::string_view instance_type) {
  for (const Row& row : k_table) {
    if (row.type == instance_type) {
      return row.shape;
    }
  }
  return std::nullopt;
}

}  // namespace launcher
