// Differential execution of optimised plans (DESIGN.md "Correctness is proved
// by running", STYLE.md testing pattern 2): seeded random small networks
// (chains and DAGs of channel-wise and aggregating operators, random shapes,
// int8 and float32) are lowered with every combination of techniques, placed,
// verified and executed in an arena of exactly arena_bytes filled with poison,
// in the executor's checking mode (every read checked against the last writer
// of its bytes), then compared with the reference interpreter: int8 bit-exact, float32
// within summation-order error. A failure is shrunk (fewer operators, fewer
// channels, smaller images, same seed) and printed with its seed and graph.
//
// Reproduce one case: TINYFIT_PLAN_SEED=<seed>; more cases: TINYFIT_PLAN_CASES=<n>.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/inplace.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "ir/op_decl.h"
#include "ir/verify_graph.h"
#include "support/kernel_oracle_cases.h"
#include "support/shrink_failure.h"
#include "plan/build_plan.h"
#include "plan/lower_overlap.h"
#include "plan/lower_pex.h"
#include "plan/plan_macs.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"
#include "schedule/order_best.h"

namespace tinyfit {
namespace {

using kernel_oracle::OracleCase;
using kernel_oracle::Random;

// The size of a random network; shrinking lowers each field.
struct NetSpec {
  uint64_t seed = 0;
  ir::DType dtype = ir::DType::kI8;
  int operators = 6;
  int64_t max_channels = 8;
  int64_t spatial = 6;  // rows = cols of the input image
};

std::string describe_spec(const NetSpec& s) {
  std::ostringstream out;
  out << "seed " << s.seed << ", " << ir::dtype_name(s.dtype) << ", " << s.operators << " operators, <= "
      << s.max_channels << " channels, " << s.spatial << "x" << s.spatial << " input";
  return out.str();
}

struct Activation {
  ir::TensorId tensor;
  ir::Shape shape;
};

// Adds an activation tensor of `shape` with fresh quantization parameters.
ir::TensorId add_activation(Random& r, OracleCase& c, const std::string& name, ir::DType dtype,
                            const ir::Shape& shape, float scale) {
  if (!kernel_oracle::is_quantized(dtype)) return kernel_oracle::add_tensor(c, name, dtype, shape, std::nullopt);
  const auto zero_point = static_cast<int32_t>(r.uniform_int(ir::dtype_min(dtype) / 2, ir::dtype_max(dtype) / 2));
  return kernel_oracle::add_tensor(c, name, dtype, shape, kernel_oracle::quant_of(dtype, scale, zero_point));
}

float scale_of(const ir::Graph& g, ir::TensorId t) {
  const auto& q = g.tensor(t).quant;
  return q ? q->scale[0] : 1.0f;
}

void add_conv(Random& r, OracleCase& c, const NetSpec& spec, const Activation& x, bool depthwise,
              std::vector<Activation>& pool, int index) {
  const ir::DType dtype = spec.dtype;
  const int64_t in_channels = x.shape[3];
  const int64_t out_channels = depthwise ? in_channels : r.uniform_int(1, spec.max_channels);
  const int64_t kernel = depthwise || r.chance(0.5) ? 3 : 1;
  const int64_t stride = x.shape[1] >= 4 && r.chance(0.2) ? 2 : 1;
  ir::ConvAttrs a;
  a.kernel_h = a.kernel_w = kernel;
  a.stride_h = a.stride_w = stride;
  a.pad = {kernel / 2, kernel / 2, kernel / 2, kernel / 2};
  const int64_t out_rows = (x.shape[1] + 2 * (kernel / 2) - kernel) / stride + 1;
  const int64_t out_cols = (x.shape[2] + 2 * (kernel / 2) - kernel) / stride + 1;
  const ir::Shape w_shape = depthwise ? ir::Shape{1, kernel, kernel, in_channels}
                                      : ir::Shape{out_channels, kernel, kernel, in_channels};
  const std::string name = (depthwise ? "dw" : "conv") + std::to_string(index);
  ir::TensorId w, b;
  float y_scale = 1.0f;
  if (dtype == ir::DType::kF32) {
    w = kernel_oracle::add_constant(c, name + "/w", kernel_oracle::random_tensor(r, dtype, w_shape, -0.5, 0.5));
    b = kernel_oracle::add_constant(c, name + "/b", kernel_oracle::random_tensor(r, dtype, {out_channels}, -0.5, 0.5));
  } else {
    const float w_scale = r.log_uniform(0.005, 0.05);
    w = kernel_oracle::add_constant(
        c, name + "/w", kernel_oracle::random_tensor(r, dtype, w_shape),
        kernel_oracle::random_weight_quant(r, dtype, out_channels, depthwise ? 3 : 0, w_scale));
    b = kernel_oracle::add_constant(c, name + "/b",
                                    kernel_oracle::random_tensor(r, ir::DType::kI32, {out_channels}, -3000, 3000));
    const int64_t taps = kernel * kernel * (depthwise ? 1 : in_channels);
    y_scale = kernel_oracle::conv_output_scale(r, scale_of(c.graph, x.tensor), w_scale, taps);
  }
  const ir::Shape y_shape{1, out_rows, out_cols, out_channels};
  const ir::TensorId y = add_activation(r, c, name + "/y", dtype, y_shape, y_scale);
  kernel_oracle::set_node(c, depthwise ? ir::OpType::kDepthwiseConv2D : ir::OpType::kConv2D, {x.tensor, w, b}, {y},
                          a, kernel_oracle::random_activation(r));
  c.graph.nodes.back().name = name;
  pool.push_back({y, y_shape});
}

void add_pool(Random& r, OracleCase& c, const NetSpec& spec, const Activation& x, std::vector<Activation>& pool,
              int index) {
  ir::PoolAttrs a;
  a.kernel_h = a.kernel_w = 3;
  a.pad = {1, 1, 1, 1};
  const bool average = r.chance(0.5);
  const std::string name = (average ? "avgpool" : "maxpool") + std::to_string(index);
  // TFLite pooling keeps the input's quantization.
  const ir::TensorId y = kernel_oracle::add_tensor(c, name + "/y", spec.dtype, x.shape, c.graph.tensor(x.tensor).quant);
  kernel_oracle::set_node(c, average ? ir::OpType::kAveragePool : ir::OpType::kMaxPool, {x.tensor}, {y}, a);
  c.graph.nodes.back().name = name;
  pool.push_back({y, x.shape});
}

void add_add(Random& r, OracleCase& c, const NetSpec& spec, const Activation& x, const Activation& z,
             std::vector<Activation>& pool, int index) {
  const std::string name = "add" + std::to_string(index);
  const float scale = std::max(scale_of(c.graph, x.tensor), scale_of(c.graph, z.tensor)) *
                      static_cast<float>(r.uniform(1.0, 2.5));
  const ir::TensorId y = add_activation(r, c, name + "/y", spec.dtype, x.shape, scale);
  kernel_oracle::set_node(c, ir::OpType::kAdd, {x.tensor, z.tensor}, {y}, {}, kernel_oracle::random_activation(r));
  c.graph.nodes.back().name = name;
  pool.push_back({y, x.shape});
}

// A random network of spec.operators operators. Each reads the newest tensor
// most of the time (chains), sometimes an older one (branches); Add joins two
// tensors of one shape. Tensors nobody reads become graph outputs.
OracleCase make_random_net(const NetSpec& spec) {
  Random r(spec.seed);
  OracleCase c;
  c.graph.name = "random-net";
  c.graph.source_path = "random-net";
  const ir::Shape x_shape{1, spec.spatial, spec.spatial, r.uniform_int(1, spec.max_channels)};
  const ir::TensorId x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, spec.dtype, x_shape, -1, 1),
                                                  kernel_oracle::random_quant(r, spec.dtype, 0.01, 0.1));
  std::vector<Activation> pool{{x, x_shape}};
  for (int i = 0; i < spec.operators; ++i) {
    const Activation& in = r.chance(0.65) ? pool.back() : r.pick(pool);
    const int64_t kind = r.uniform_int(0, 9);
    std::optional<Activation> partner;
    for (const Activation& other : pool) {
      if (other.tensor != in.tensor && other.shape == in.shape) partner = other;
    }
    if (kind <= 3) {
      add_conv(r, c, spec, in, false, pool, i);
    } else if (kind <= 5) {
      add_conv(r, c, spec, in, true, pool, i);
    } else if (kind <= 7 || !partner) {
      add_pool(r, c, spec, in, pool, i);
    } else {
      add_add(r, c, spec, in, *partner, pool, i);
    }
  }
  std::vector<bool> consumed(c.graph.tensors.size(), false);
  for (const ir::Node& node : c.graph.nodes) {
    for (ir::TensorId t : node.inputs) {
      if (t != ir::kNoTensor) consumed[static_cast<size_t>(t)] = true;
    }
  }
  for (const Activation& a : pool) {
    if (!consumed[static_cast<size_t>(a.tensor)] && a.tensor != x) c.graph.outputs.push_back(a.tensor);
  }
  return c;
}

std::string describe_graph(const ir::Graph& g) {
  std::ostringstream out;
  for (const ir::Node& node : g.nodes) {
    out << "  " << node.name << " (" << ir::op_type_name(node.op) << "): ";
    for (ir::TensorId t : node.inputs) {
      if (t != ir::kNoTensor && !g.tensor(t).is_constant) out << ir::format_shape(g.tensor(t).shape) << " ";
    }
    out << "-> " << ir::format_shape(g.output_tensor(node, 0).shape) << "\n";
  }
  return out.str();
}

// One combination of techniques.
struct Techniques {
  std::string order;  // schedule algorithm name
  bool inplace = false;
  bool pex = false;
  bool overlap = false;  // segment-level overlap on top (plan/lower_overlap.h)
  std::string name() const {
    return order + (inplace ? "+inplace" : "") + (pex ? "+pex" : "") + (overlap ? "+overlap" : "");
  }
};

const std::vector<Techniques>& list_technique_combinations() {
  static const std::vector<Techniques> kCombinations = {
      {"given", false, false, false}, {"given", true, false, false}, {"exact", false, false, false},
      {"exact", true, false, false},  {"given", false, true, false}, {"given", true, true, false},
      {"given", false, false, true},  {"exact", true, false, true},  {"given", true, true, true},
  };
  return kCombinations;
}

// Segment-level overlap's promises before any kernel runs: the same MACs,
// and no position's live bytes above the plan it lowers.
Result<plan::Plan> apply_overlap_checked(const ir::Graph& graph, plan::Plan base) {
  const int64_t base_peak = plan::compute_plan_memory(base).peak_bytes;
  plan::Plan lowered = plan::apply_overlap(graph, std::move(base)).plan;
  if (plan::count_plan_macs(graph, lowered) != ir::count_graph_macs(graph)) {
    return fail("overlap plan executes " + std::to_string(plan::count_plan_macs(graph, lowered)) + " MACs",
                ExitCode::kInternal);
  }
  const int64_t peak = plan::compute_plan_memory(lowered).peak_bytes;
  if (peak > base_peak) {
    return fail("overlap peak " + std::to_string(peak) + " above its base plan's " + std::to_string(base_peak),
                ExitCode::kInternal);
  }
  return lowered;
}

// Nullopt when the technique is not built yet (exit 2); otherwise the plan.
Result<std::optional<plan::Plan>> build_plan_with(const ir::Graph& graph, const Techniques& t) {
  if (t.pex) {
    plan::PexOptions options;
    options.inplace = t.inplace;
    Result<plan::PexResult> pex = plan::build_pex_plan(graph, options);
    if (!pex && pex.error().code == ExitCode::kBadCommandLine) return std::optional<plan::Plan>{};
    if (!pex) return tl::unexpected(pex.error());
    // PEX's promises before any kernel runs: no recomputation, and never above
    // the plain plan of the given order (in place too when asked).
    if (plan::count_plan_macs(graph, pex->plan) != ir::count_graph_macs(graph)) {
      return fail("pex plan executes " + std::to_string(plan::count_plan_macs(graph, pex->plan)) + " MACs, graph has " +
                  std::to_string(ir::count_graph_macs(graph)), ExitCode::kInternal);
    }
    analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
    const analysis::Order order = analysis::given_order(bg);
    if (t.inplace) bg = analysis::apply_inplace(bg, order).graph;
    const int64_t ordinary = plan::compute_plan_memory(plan::build_operator_plan(graph, bg, order)).peak_bytes;
    const int64_t peak = plan::compute_plan_memory(pex->plan).peak_bytes;
    if (peak > ordinary) {
      return fail("pex peak " + std::to_string(peak) + " above the ordinary " + std::to_string(ordinary),
                  ExitCode::kInternal);
    }
    if (!t.overlap) return std::optional<plan::Plan>{std::move(pex->plan)};
    TINYFIT_ASSIGN_OR_RETURN(plan::Plan lowered, apply_overlap_checked(graph, std::move(pex->plan)));
    return std::optional<plan::Plan>{std::move(lowered)};
  }
  analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  const schedule::OrderAlgorithm* algorithm = schedule::find_order_algorithm(t.order);
  TINYFIT_CHECK(algorithm != nullptr) << t.order;
  schedule::OrderOptions order_options;
  order_options.inplace = t.inplace;  // the order and its merges, chosen together
  const schedule::OrderResult ordered = algorithm->run(bg, order_options);
  if (t.inplace) bg = analysis::apply_inplace_choices(bg, ordered.order, ordered.inplace_choices).graph;
  plan::Plan plan = plan::build_operator_plan(graph, bg, ordered.order);
  if (!t.overlap) return std::optional<plan::Plan>{std::move(plan)};
  TINYFIT_ASSIGN_OR_RETURN(plan::Plan lowered, apply_overlap_checked(graph, std::move(plan)));
  return std::optional<plan::Plan>{std::move(lowered)};
}

// Empty when equal: quantized outputs byte for byte, float32 within a
// summation-order error of 1e-4 relative + 1e-5 absolute (kernels may sum in a
// different order than the reference's double accumulation).
std::string compare_with_reference(const exec::TensorData& actual, const exec::TensorData& expected) {
  if (actual.dtype != expected.dtype || actual.bytes.size() != expected.bytes.size()) return "dtype or size differs";
  if (actual.dtype != ir::DType::kF32) {
    for (size_t i = 0; i < actual.bytes.size(); ++i) {
      if (actual.bytes[i] != expected.bytes[i]) {
        return "element " + std::to_string(i) + ": plan " + std::to_string(static_cast<int8_t>(actual.bytes[i])) +
               ", reference " + std::to_string(static_cast<int8_t>(expected.bytes[i]));
      }
    }
    return {};
  }
  const auto a = actual.values<float>();
  const auto e = expected.values<float>();
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(std::abs(a[i] - e[i]) <= 1e-5 + 1e-4 * std::abs(e[i]))) {
      return "element " + std::to_string(i) + ": plan " + std::to_string(a[i]) + ", reference " + std::to_string(e[i]);
    }
  }
  return {};
}

// Empty when every built technique's plan matches the reference; otherwise
// the first problem. `skipped` collects techniques or kernels not built yet.
std::string check_net(const NetSpec& spec, std::vector<std::string>& skipped) {
  OracleCase c = make_random_net(spec);
  if (Status valid = ir::verify_graph(c.graph); !valid) return "generator made an invalid graph: " + valid.error().message;
  Result<std::vector<exec::TensorData>> expected = exec::run_reference(c.graph, c.inputs);
  if (!expected) return "reference: " + expected.error().format();
  for (const Techniques& t : list_technique_combinations()) {
    Result<std::optional<plan::Plan>> built = build_plan_with(c.graph, t);
    if (!built) return t.name() + ": " + built.error().format();
    if (!*built) {
      skipped.push_back(t.name() + " (not built yet)");
      continue;
    }
    plan::Plan& plan = **built;
    if (Result<plan::Placement> placed = plan::place_plan(plan, "greedy-by-size", {}); !placed) {
      return t.name() + ": placement: " + placed.error().message;
    }
    if (Status valid = plan::verify_plan(c.graph, plan); !valid) return t.name() + ": " + valid.error().message;
    exec::ExecuteOptions checking;
    checking.check_overwrites = true;  // every read checked against its bytes' last writer
    Result<std::vector<exec::TensorData>> actual = exec::execute_plan(c.graph, plan, c.inputs, checking);
    if (!actual && actual.error().code == ExitCode::kBadCommandLine) {
      skipped.push_back(t.name() + ": " + actual.error().format());
      continue;
    }
    if (!actual) return t.name() + ": " + actual.error().format();
    for (size_t o = 0; o < expected->size(); ++o) {
      const std::string diff = compare_with_reference((*actual)[o], (*expected)[o]);
      if (!diff.empty()) {
        return t.name() + ": output '" + c.graph.tensor(c.graph.outputs[o]).name + "' (arena " +
               std::to_string(plan.arena_bytes) + " bytes): " + diff;
      }
    }
  }
  return {};
}

// Lowers each size field while the failure persists (Halide-style shrinking).
NetSpec shrink(NetSpec spec, std::string& failure) {
  std::vector<std::string> ignored;
  return testing::shrink_failure<NetSpec>(
      std::move(spec), failure,
      {
          [](NetSpec& s) { return s.operators > 1 ? (--s.operators, true) : false; },
          [](NetSpec& s) { return s.max_channels > 1 ? (s.max_channels = (s.max_channels + 1) / 2, true) : false; },
          [](NetSpec& s) { return s.spatial > 1 ? (--s.spatial, true) : false; },
      },
      [&ignored](const NetSpec& s) { return check_net(s, ignored); });
}

void run_property(ir::DType dtype, int default_cases, uint64_t first_seed) {
  const std::optional<int64_t> only = kernel_oracle::read_env_int("TINYFIT_PLAN_SEED");
  const int cases = static_cast<int>(kernel_oracle::read_env_int("TINYFIT_PLAN_CASES").value_or(default_cases));
  std::vector<std::string> skipped;
  int checked = 0;
  for (int i = 0; i < cases; ++i) {
    NetSpec spec;
    spec.seed = only ? static_cast<uint64_t>(*only) : first_seed + static_cast<uint64_t>(i);
    spec.dtype = dtype;
    Random sizes(spec.seed ^ 0x9e3779b97f4a7c15ull);
    spec.operators = static_cast<int>(sizes.uniform_int(1, 8));
    spec.max_channels = sizes.uniform_int(1, 12);
    spec.spatial = sizes.uniform_int(1, 9);
    std::string failure = check_net(spec, skipped);
    if (!failure.empty()) {
      const NetSpec minimal = shrink(spec, failure);
      ADD_FAILURE() << "random net (" << describe_spec(spec) << ") fails; shrunk to " << describe_spec(minimal)
                    << ":\n"
                    << describe_graph(make_random_net(minimal).graph) << failure
                    << "\nreproduce: TINYFIT_PLAN_SEED=" << minimal.seed;
      return;
    }
    ++checked;
    if (only) break;
  }
  std::cout << checked << " random " << ir::dtype_name(dtype) << " nets, " << list_technique_combinations().size()
            << " technique combinations each\n";
  if (!skipped.empty()) {
    GTEST_SKIP() << skipped.size() << " plan runs skipped, first: " << skipped.front();
  }
}

TEST(PlanTechniquesProperty, Int8PlansAreBitExactWithTheReference) { run_property(ir::DType::kI8, 150, 1000); }

TEST(PlanTechniquesProperty, Float32PlansMatchTheReferenceWithinRoundingError) {
  run_property(ir::DType::kF32, 60, 5000);
}

}  // namespace
}  // namespace tinyfit
