// Test support for the row-loop execution tests (tests only): the seeded
// random-case loop (TINYFIT_ROW_SEED reproduces one case, TINYFIT_ROW_CASES
// runs more), a row-loop plan run against the reference interpreter, and a
// graph's operators for a failure message.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "exec/add_kernel_workspaces.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "ir/op_decl.h"
#include "ir/verify_graph.h"
#include "plan/plan_macs.h"
#include "support/kernel_oracle_harness.h"
#include "support/plan_runs.h"

namespace tinyfit::exec::testing {

// Empty when `actual` equals `expected`: integers bit for bit, float32
// within summation-order error (1e-5 absolute + 1e-4 relative); otherwise
// the first difference.
inline std::string first_output_difference(const std::vector<TensorData>& actual,
                                           const std::vector<TensorData>& expected) {
  if (actual.size() != expected.size()) return "output count differs from the reference";
  for (size_t o = 0; o < expected.size(); ++o) {
    const TensorData& a = actual[o];
    const TensorData& e = expected[o];
    if (a.dtype != e.dtype || a.bytes.size() != e.bytes.size()) {
      return "output " + std::to_string(o) + " has another type or size than the reference's";
    }
    if (a.dtype != ir::DType::kF32) {
      if (a.bytes != e.bytes) return "output " + std::to_string(o) + " differs from the reference";
      continue;
    }
    const auto av = a.values<float>(), ev = e.values<float>();
    for (size_t i = 0; i < av.size(); ++i) {
      if (!(std::abs(av[i] - ev[i]) <= 1e-5 + 1e-4 * std::abs(ev[i]))) {
        return "output " + std::to_string(o) + " element " + std::to_string(i) + ": " + std::to_string(av[i]) +
               " vs " + std::to_string(ev[i]);
      }
    }
  }
  return {};
}

// Empty when `plan` of `net` (with its conv calls' fastest-kernel
// workspaces added when `workspaces`) has the graph's MACs (no row computed
// twice) and, placed, verified and executed in an arena of exactly its
// size filled with poison, gives the reference interpreter's outputs;
// otherwise what differs.
inline std::string check_row_plan(const kernel_oracle::OracleCase& net, plan::Plan plan, bool workspaces) {
  if (workspaces) {
    if (Result<int> added = add_kernel_workspaces(net.graph, plan); !added) return "workspaces: " + added.error().format();
  }
  if (plan::count_plan_macs(net.graph, plan) != ir::count_graph_macs(net.graph)) {
    return "MACs: plan " + std::to_string(plan::count_plan_macs(net.graph, plan)) + ", graph " +
           std::to_string(ir::count_graph_macs(net.graph));
  }
  Result<std::vector<TensorData>> expected = run_reference(net.graph, net.inputs);
  if (!expected) return "reference: " + expected.error().format();
  Result<std::vector<TensorData>> actual = place_and_execute(net.graph, std::move(plan), net.inputs);
  if (!actual) return "plan: " + actual.error().format();
  return first_output_difference(*actual, *expected);
}

// One line per node: name, operator, activation inputs and output shape.
inline std::string describe_operators(const ir::Graph& g) {
  std::ostringstream out;
  for (const ir::Node& node : g.nodes) {
    out << "  " << node.name << " (" << ir::op_type_name(node.op) << "):";
    for (ir::TensorId t : node.inputs) {
      if (t != ir::kNoTensor && !g.tensor(t).is_constant) {
        out << " " << g.tensor(t).name << " " << ir::format_shape(g.tensor(t).shape);
      }
    }
    out << " -> " << ir::format_shape(g.output_tensor(node, 0).shape) << "\n";
  }
  return out.str();
}

struct RowSeedRun {
  int cases = 0;          // cases checked, the failing one included
  bool one_seed = false;  // TINYFIT_ROW_SEED chose the only case
};

// Runs `check` (empty when the case passes; otherwise its description and
// what failed) on seeds 0 .. default_cases - 1, or TINYFIT_ROW_CASES of
// them, or only TINYFIT_ROW_SEED; the first failure is reported and ends
// the run.
inline RowSeedRun for_each_row_seed(int default_cases, const std::function<std::string(uint64_t seed)>& check) {
  const std::optional<int64_t> only = kernel_oracle::read_env_int("TINYFIT_ROW_SEED");
  const int cases =
      only ? 1 : static_cast<int>(kernel_oracle::read_env_int("TINYFIT_ROW_CASES").value_or(default_cases));
  RowSeedRun run{0, only.has_value()};
  for (int i = 0; i < cases; ++i) {
    ++run.cases;
    const std::string failure = check(only ? static_cast<uint64_t>(*only) : static_cast<uint64_t>(i));
    if (failure.empty()) continue;
    ADD_FAILURE() << failure;
    break;
  }
  return run;
}

}  // namespace tinyfit::exec::testing
