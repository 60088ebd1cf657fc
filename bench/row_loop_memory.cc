// tinyfit_bench_row_loop: the memory of row loops (plan/lower_row_loop.h,
// docs/row_loops.md) over a model's first operators, against ordinary
// execution of the same operators, from one run. For each chain (the first N
// operators of the model's own order) and tile, one row:
//   - ordinary: the largest live bytes while those N operators run whole;
//   - row loop: the largest live bytes inside the loop (its carried buffers,
//     and the whole tensors it reads or writes, included);
//   - plan: the peak of the whole model's plan with that loop (the rest whole);
//   - MACs over ordinary (1.000: no row computed twice), kernel calls per
//     inference, bytes the BlockConcat copies move per inference (their extra
//     work), and whether the plan, executed in an arena of exactly its size,
//     matched the reference interpreter.
// Usage: tinyfit_bench_row_loop MODEL [--operators 2,6] [--tiles 1,2,8] [--no-verify]
// A benchmark, not a test: CI builds it and does not run it.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "driver/compile_verify.h"
#include "import/import_model.h"
#include "plan/build_plan.h"
#include "plan/lower_row_loop.h"
#include "plan/plan_macs.h"
#include "plan/plan_memory.h"
#include "plan/plan_walk.h"
#include "plan/verify_plan.h"

namespace tinyfit {
namespace {

// The largest live bytes over positions [first, last] of a plan's memory.
int64_t find_peak_between(const plan::PlanMemory& memory, int first, int last) {
  int64_t peak = 0;
  for (int p = first; p <= last; ++p) peak = std::max(peak, memory.live_bytes.at(static_cast<size_t>(p)));
  return peak;
}

// Bytes the plan's kCopy calls move per inference.
int64_t count_copied_bytes(const plan::Plan& plan) {
  int64_t bytes = 0;
  const Status walked = plan::walk_call_instances(
      plan.steps, {[&](const plan::KernelCall& call, std::span<const plan::LoopChunk> nest) -> Status {
                     if (call.mode != plan::CallMode::kCopy) return {};
                     const plan::PlanBuffer& buffer = plan.buffers[static_cast<size_t>(call.outputs[0].buffer)];
                     bytes += plan::resolve_view(call.outputs[0], nest).count_elements() * ir::dtype_size_bytes(buffer.dtype);
                     return {};
                   },
                   {}});
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
  return bytes;
}

std::string format_thousands(int64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > (value < 0 ? 1 : 0); i -= 3) {
    digits.insert(static_cast<size_t>(i), ",");
  }
  return digits;
}

int run(const std::string& model, const std::vector<int>& chains, const std::vector<int64_t>& tiles, bool verify) {
  Result<ir::Graph> imported = import::import_model(model);
  if (!imported) {
    std::cerr << imported.error().format() << "\n";
    return 1;
  }
  const ir::Graph& graph = *imported;
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  const analysis::Order order = analysis::given_order(bg);
  const plan::Plan ordinary = plan::build_operator_plan(graph, bg, order);
  const plan::PlanMemory ordinary_memory = plan::compute_plan_memory(ordinary);
  std::cout << "model: " << model << "\nordinary peak: " << format_thousands(ordinary_memory.peak_bytes)
            << " bytes\n\n"
            << "operators  last                          tile  ordinary   row loop   plan peak  MACs   calls  copied   "
               "verified\n";
  for (int operators : chains) {
    if (operators < 1 || operators > static_cast<int>(order.size())) continue;
    const std::string& last = bg.operators[static_cast<size_t>(order[static_cast<size_t>(operators - 1)])].name;
    const int64_t ordinary_part = find_peak_between(ordinary_memory, 0, operators - 1);
    for (int64_t tile : tiles) {
      plan::RowLoopSpec spec;
      spec.ops.assign(order.begin(), order.begin() + operators);
      spec.tile = tile;
      Result<plan::Plan> plan = plan::build_row_loop_plan(graph, bg, order, {spec});
      if (!plan) {
        std::cout << operators << ": " << plan.error().format() << "\n";
        break;
      }
      if (Result<plan::Placement> placed = plan::place_plan(*plan, "greedy-by-size", {}); !placed) {
        std::cerr << placed.error().format() << "\n";
        return 70;
      }
      if (Status valid = plan::verify_plan(graph, *plan); !valid) {
        std::cerr << valid.error().format() << "\n";
        return 70;
      }
      const plan::PlanMemory memory = plan::compute_plan_memory(*plan);
      const plan::LoopSpan& loop = memory.loops.at(0);
      std::string verified = "not run";
      if (verify) {
        Result<driver::Verification> checked = driver::verify_by_execution(graph, *plan, 1, true);
        verified = !checked ? checked.error().format() : checked->verified ? "yes" : "no";
      }
      char macs[16];
      std::snprintf(macs, sizeof macs, "%.3f",
                    static_cast<double>(plan::count_plan_macs(graph, *plan)) /
                        static_cast<double>(ir::count_graph_macs(graph)));
      std::printf("%9d  %-28.28s %5lld  %9s  %9s  %10s  %5s  %5lld  %7s  %s\n", operators, last.c_str(),
                  static_cast<long long>(tile), format_thousands(ordinary_part).c_str(),
                  format_thousands(find_peak_between(memory, loop.first_position, loop.last_position)).c_str(),
                  format_thousands(memory.peak_bytes).c_str(), macs,
                  static_cast<long long>(plan->count_calls()), format_thousands(count_copied_bytes(*plan)).c_str(),
                  verified.c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace tinyfit

int main(int argc, char** argv) {
  CLI::App app{"Memory of row loops over a model's first operators (plan/lower_row_loop.h)"};
  std::string model = "zoo:mobilenetv2-224-int8";
  std::vector<int> chains{2, 3, 6};
  std::vector<int64_t> tiles{1, 2, 8};
  bool no_verify = false;
  app.add_option("model", model, "model file or zoo:NAME");
  app.add_option("--operators", chains, "chains: the first N operators of the model's order")->delimiter(',');
  app.add_option("--tiles", tiles, "output rows of the chain's last operator per iteration")->delimiter(',');
  app.add_flag("--no-verify", no_verify, "skip execution against the reference interpreter");
  CLI11_PARSE(app, argc, argv);
  try {
    return tinyfit::run(model, chains, tiles, !no_verify);
  } catch (const std::exception& e) {
    std::cerr << "tinyfit_bench_row_loop: internal error: " << e.what() << "\n";
    return 70;
  }
}
