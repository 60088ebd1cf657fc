#include "plan/plan_macs.h"

#include <map>

#include "ir/op_decl.h"
#include "partition/partition_scheme.h"
#include "plan/plan_walk.h"
#include "support/diag.h"

namespace tinyfit::plan {
namespace {

int64_t count_tensor_elements(const ir::Tensor& tensor) {
  int64_t elements = 1;
  for (int64_t extent : tensor.shape) elements *= extent;
  return elements;
}

// A call's share of its node over all its instances: numerator / denominator.
struct Share {
  int64_t numerator = 0;
  int64_t denominator = 1;
};

// macs * numerator / denominator without overflow in the products: the
// quotient and the remainder are scaled apart.
int64_t scale_macs(int64_t macs, const Share& share) {
  int64_t whole = 0, part = 0;
  const bool overflow = __builtin_mul_overflow(macs / share.denominator, share.numerator, &whole) ||
                        __builtin_mul_overflow(macs % share.denominator, share.numerator, &part);
  TINYFIT_CHECK(!overflow) << "MAC count overflows 64 bits";
  return whole + part / share.denominator;
}

}  // namespace

int64_t count_plan_macs(const ir::Graph& graph, const Plan& plan) {
  std::map<const KernelCall*, Share> shares;
  const Status walked = walk_call_instances(
      plan.steps, {[&](const KernelCall& call, std::span<const LoopChunk> nest) -> Status {
                     if (call.mode == CallMode::kFinalize || call.mode == CallMode::kCopy) return {};
                     // A fused call's output view shows its last node's output.
                     const ir::NodeId last = call.fused.empty() ? call.node : call.fused.back();
                     const ir::Node& node = graph.nodes.at(static_cast<size_t>(last));
                     const int64_t outputs = count_tensor_elements(graph.output_tensor(node, 0));
                     const int64_t shown = resolve_view(call.outputs.at(0), nest).count_elements();
                     Share& share = shares[&call];
                     if (call.mode != CallMode::kAccumulate) {
                       share.numerator += shown;
                       share.denominator = outputs;
                       return {};
                     }
                     const ViewInstance input = resolve_view(call.inputs.at(0), nest);
                     if (partition::accumulates_rows(graph, node)) {  // a global pool by rows
                       share.numerator += input.count_elements();
                       share.denominator = count_tensor_elements(graph.input_tensor(node, 0));
                       return {};
                     }
                     const int64_t channels = graph.input_tensor(node, 0).shape.back();
                     TINYFIT_CHECK(channels > 0) << "node '" << node.name << "': no channel axis to accumulate";
                     share.numerator += shown * input.shape.back();
                     share.denominator = outputs * channels;
                     return {};
                   },
                   {}});
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
  int64_t total = 0;
  for (const auto& [call, share] : shares) {
    int64_t macs = 0;  // a fused call computes each of its nodes
    for (ir::NodeId id : call->computed_nodes()) {
      const ir::Node& node = graph.nodes.at(static_cast<size_t>(id));
      macs += ir::op_decl(node.op).count_macs(graph, node);
    }
    total += scale_macs(macs, share);
  }
  return total;
}

}  // namespace tinyfit::plan
