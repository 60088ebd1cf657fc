// Segment-level overlap on random networks (issue 12): seeded chains of
// inverted bottlenecks (1x1 or stem-conv expand, 3x3 / 5x5 depthwise, stride 1
// or 2, residual when the shape allows), convolutions, depthwise layers and a
// flattening FullyConnected head, int8 and uint8, sometimes with an early
// tensor kept as a second model output (which no overlap may consume). Each is
// lowered with the given and the best operator order, with and without
// in-place merges, then fused and overlapped (plan/lower_overlap.h; also with
// overlaps and fusions only where the peak, or a peak allowance, needs them), placed,
// verified and executed in an arena of exactly arena_bytes filled with poison
// in the checking mode (every read checked against the last writer of its
// bytes), and compared bit for bit with the reference interpreter. MACs must
// not change and the peak must not rise. A failure is shrunk (fewer blocks,
// fewer channels, smaller images, same seed) and printed with its seed.
//
// Reproduce one case: TINYFIT_OVERLAP_SEED=<seed>; more: TINYFIT_OVERLAP_CASES=<n>.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/inplace.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "ir/verify_graph.h"
#include "plan/build_plan.h"
#include "plan/lower_overlap.h"
#include "plan/plan_macs.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"
#include "schedule/order_best.h"
#include "support/inverted_bottleneck_nets.h"
#include "support/kernel_oracle_harness.h"
#include "support/shrink_failure.h"

namespace tinyfit {
namespace {

using exec::conv_test::BottleneckConfig;
using exec::conv_test::Layer;
using exec::conv_test::Net;

struct NetSpec {
  uint64_t seed = 0;
  ir::DType dtype = ir::DType::kI8;
  int blocks = 4;
  int64_t max_channels = 8;
  int64_t spatial = 8;
};

std::string describe_spec(const NetSpec& s) {
  std::ostringstream out;
  out << "seed " << s.seed << ", " << ir::dtype_name(s.dtype) << ", " << s.blocks << " blocks, <= " << s.max_channels
      << " channels, " << s.spatial << "x" << s.spatial << " input";
  return out.str();
}

Net make_net(const NetSpec& spec) {
  kernel_oracle::Random r(spec.seed);
  Net net;
  net.dtype = spec.dtype;
  net.random = exec::conv_test::Lcg(static_cast<uint32_t>(spec.seed));
  ir::TensorId x = net.add_input({1, spec.spatial, spec.spatial, r.uniform_int(1, spec.max_channels)});
  std::vector<ir::TensorId> outputs;
  for (int b = 0; b < spec.blocks; ++b) {
    const ir::Shape xs = net.graph.tensor(x).shape;
    const std::string name = "b" + std::to_string(b);
    const int64_t kind = r.uniform_int(0, 5);
    if (kind <= 2) {
      BottleneckConfig c;
      const bool stem = b == 0 && r.chance(0.5);
      c.expand_kernel = stem ? 3 : 1;
      c.expand_stride = stem && xs[1] >= 3 ? 2 : 1;
      c.mid_channels = r.uniform_int(1, 3 * spec.max_channels);
      c.dw_kernel = r.chance(0.7) ? 3 : 5;
      c.dw_stride = xs[1] >= 3 && r.chance(0.3) ? 2 : 1;
      c.out_channels = r.uniform_int(1, spec.max_channels);
      c.residual = !stem && c.dw_stride == 1 && r.chance(0.6);
      if (c.residual) c.out_channels = xs[3];
      c.residual_input_first = r.chance(0.5);
      x = exec::conv_test::add_inverted_bottleneck(net, name, x, c);
    } else if (kind == 3) {
      const int64_t kernel = r.chance(0.5) ? 3 : 1;
      x = net.add_layer(name, x,
                        exec::conv_test::make_same_layer(ir::OpType::kConv2D, r.uniform_int(1, spec.max_channels), kernel,
                                                         xs[1] >= 3 && r.chance(0.3) ? 2 : 1, xs[1], xs[2],
                                                         exec::conv_test::relu6()));
    } else if (kind == 4) {
      x = net.add_layer(name, x,
                        exec::conv_test::make_same_layer(ir::OpType::kDepthwiseConv2D, xs[3], 3, r.chance(0.3) ? 2 : 1,
                                                         xs[1], xs[2], exec::conv_test::relu6()));
    } else if (r.chance(0.5) && x != net.graph.inputs[0]) {
      outputs.push_back(x);  // an early tensor the caller reads: never consumed in place
    }
  }
  if (r.chance(0.3)) {
    Layer head;
    head.op = ir::OpType::kFullyConnected;
    head.out_channels = r.uniform_int(1, 10);
    x = net.add_layer("head", x, head, true);
  }
  if (outputs.empty() || outputs.back() != x) outputs.push_back(x);
  net.graph.outputs = outputs;
  return net;
}

// Empty when equal; quantized outputs byte for byte.
std::string compare(const exec::TensorData& actual, const exec::TensorData& expected) {
  if (actual.bytes.size() != expected.bytes.size()) return "size differs";
  for (size_t i = 0; i < actual.bytes.size(); ++i) {
    if (actual.bytes[i] != expected.bytes[i]) {
      return "byte " + std::to_string(i) + ": plan " + std::to_string(actual.bytes[i]) + ", reference " +
             std::to_string(expected.bytes[i]);
    }
  }
  return {};
}

// Empty when every lowering matches the reference; otherwise the first problem.
std::string check_net(const NetSpec& spec) {
  const Net net = make_net(spec);
  const ir::Graph& graph = net.graph;
  if (Status valid = ir::verify_graph(graph); !valid) return "generator made an invalid graph: " + valid.error().message;
  Result<std::vector<exec::TensorData>> expected = exec::run_reference(graph, net.inputs);
  if (!expected) return "reference: " + expected.error().format();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  for (const char* order_name : {"given", "best"}) {
    for (bool inplace : {false, true}) {
      const std::string what = std::string(order_name) + (inplace ? "+inplace" : "") + "+overlap";
      schedule::OrderOptions order_options;
      order_options.inplace = inplace;  // the order and its merges, chosen together
      const schedule::OrderResult ordered = schedule::find_order_algorithm(order_name)->run(bg, order_options);
      plan::Plan base = plan::build_operator_plan(
          graph, inplace ? analysis::apply_inplace_choices(bg, ordered.order, ordered.inplace_choices).graph : bg,
          ordered.order);
      const int64_t base_peak = plan::compute_plan_memory(base).peak_bytes;
      const plan::Plan every = plan::apply_overlap(graph, base).plan;
      // With every overlap, and with unfused calls overlapped only where the
      // peak needs it: the same peak, never more overlaps.
      plan::OverlapOptions only_needed;
      only_needed.only_where_the_peak_needs_it = true;
      const plan::OverlapResult fewer = plan::apply_overlap(graph, base, only_needed);
      // Fusions only where the peak needs them: never a higher peak (a block
      // left unfused can even lower it: its calls' overlaps), or with an
      // allowance (the base plan's peak, as a --sram budget), at most that.
      plan::OverlapOptions fuse_needed = only_needed;
      fuse_needed.fuse_only_where_the_peak_needs_it = true;
      const plan::OverlapResult fewer_fused = plan::apply_overlap(graph, base, fuse_needed);
      // A block the caller leaves unfused (leave_unfused, the latency
      // budget's rule): never fused, the others as the peak needs them.
      plan::OverlapOptions leave_first = fuse_needed;
      const std::vector<ir::NodeId> needed_heads = plan::list_fused_block_heads(fewer_fused.plan);
      if (!needed_heads.empty()) leave_first.leave_unfused = {needed_heads.front()};
      const plan::OverlapResult left = plan::apply_overlap(graph, base, leave_first);
      fuse_needed.fusion_peak_allowance_bytes = base_peak;
      const plan::OverlapResult allowed = plan::apply_overlap(graph, std::move(base), fuse_needed);
      const auto count_overlaps = [](const plan::Plan& p) {
        int n = 0;
        for (const plan::Step& step : p.steps) n += !step.is_loop() && step.call().overlap ? 1 : 0;
        return n;
      };
      if (plan::compute_plan_memory(fewer.plan).peak_bytes != plan::compute_plan_memory(every).peak_bytes) {
        return what + " (only where the peak needs it): the peak changed";
      }
      if (count_overlaps(fewer.plan) + fewer.dropped != count_overlaps(every)) {
        return what + " (only where the peak needs it): " + std::to_string(fewer.dropped) + " dropped of " +
               std::to_string(count_overlaps(every)) + " overlaps, " + std::to_string(count_overlaps(fewer.plan)) +
               " left";
      }
      if (plan::compute_plan_memory(fewer_fused.plan).peak_bytes > plan::compute_plan_memory(every).peak_bytes) {
        return what + " (fusions only where the peak needs them): the peak rose";
      }
      if (fewer_fused.fused > fewer.fused || allowed.fused > fewer.fused) {
        return what + " (fusions only where the peak needs them): more blocks fused than with every fusion";
      }
      if (!needed_heads.empty()) {
        const std::vector<ir::NodeId> left_heads = plan::list_fused_block_heads(left.plan);
        if (std::find(left_heads.begin(), left_heads.end(), needed_heads.front()) != left_heads.end()) {
          return what + " (a block left unfused): the block was fused";
        }
      }
      for (const plan::Plan* lowered : {&every, &fewer.plan, &fewer_fused.plan, &allowed.plan, &left.plan}) {
        plan::Plan plan = *lowered;
        if (plan::count_plan_macs(graph, plan) != ir::count_graph_macs(graph)) return what + ": MACs changed";
        if (plan::compute_plan_memory(plan).peak_bytes > base_peak) return what + ": the peak rose";
        if (Result<plan::Placement> placed = plan::place_plan(plan, "hill-climb", {}); !placed) {
          return what + ": placement: " + placed.error().message;
        }
        if (Status valid = plan::verify_plan(graph, plan); !valid) return what + ": " + valid.error().message;
        exec::ExecuteOptions checking;
        checking.check_overwrites = true;
        Result<std::vector<exec::TensorData>> actual = exec::execute_plan(graph, plan, net.inputs, checking);
        if (!actual) return what + ": " + actual.error().format();
        for (size_t o = 0; o < expected->size(); ++o) {
          const std::string diff = compare((*actual)[o], (*expected)[o]);
          if (!diff.empty()) {
            return what + ": output " + std::to_string(o) + " (arena " + std::to_string(plan.arena_bytes) +
                   " bytes): " + diff;
          }
        }
      }
    }
  }
  return {};
}

NetSpec shrink(NetSpec spec, std::string& failure) {
  return testing::shrink_failure<NetSpec>(
      std::move(spec), failure,
      {
          [](NetSpec& s) { return s.blocks > 1 ? (--s.blocks, true) : false; },
          [](NetSpec& s) { return s.max_channels > 1 ? (s.max_channels = (s.max_channels + 1) / 2, true) : false; },
          [](NetSpec& s) { return s.spatial > 1 ? (--s.spatial, true) : false; },
      },
      [](const NetSpec& s) { return check_net(s); });
}

std::string describe_graph(const ir::Graph& g) {
  std::ostringstream out;
  for (const ir::Node& node : g.nodes) {
    out << "  " << node.name << " (" << ir::op_type_name(node.op) << "): "
        << ir::format_shape(g.input_tensor(node, 0).shape) << " -> " << ir::format_shape(g.output_tensor(node, 0).shape)
        << "\n";
  }
  return out.str();
}

void run_property(ir::DType dtype, int default_cases, uint64_t first_seed) {
  const std::optional<int64_t> only = kernel_oracle::read_env_int("TINYFIT_OVERLAP_SEED");
  const int cases = static_cast<int>(kernel_oracle::read_env_int("TINYFIT_OVERLAP_CASES").value_or(default_cases));
  for (int i = 0; i < cases; ++i) {
    NetSpec spec;
    spec.seed = only ? static_cast<uint64_t>(*only) : first_seed + static_cast<uint64_t>(i);
    spec.dtype = dtype;
    kernel_oracle::Random sizes(spec.seed ^ 0x9e3779b97f4a7c15ull);
    spec.blocks = static_cast<int>(sizes.uniform_int(1, 6));
    spec.max_channels = sizes.uniform_int(1, 10);
    spec.spatial = sizes.uniform_int(1, 10);
    std::string failure = check_net(spec);
    if (!failure.empty()) {
      const NetSpec minimal = shrink(spec, failure);
      ADD_FAILURE() << "random net (" << describe_spec(spec) << ") fails; shrunk to " << describe_spec(minimal) << ":\n"
                    << describe_graph(make_net(minimal).graph) << failure
                    << "\nreproduce: TINYFIT_OVERLAP_SEED=" << minimal.seed;
      return;
    }
    if (only) break;
  }
}

TEST(OverlapProperty, Int8PlansAreBitExactWithTheReference) { run_property(ir::DType::kI8, 400, 1); }

TEST(OverlapProperty, Uint8PlansAreBitExactWithTheReference) { run_property(ir::DType::kU8, 150, 7001); }

}  // namespace
}  // namespace tinyfit
