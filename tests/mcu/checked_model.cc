#include "checked_model.h"

#include <algorithm>

#include "analysis/buffer_graph.h"
#include "analysis/inplace.h"
#include "driver/compile_pipeline.h"
#include "exec/reference_interpreter.h"
#include "import/import_model.h"
#include "plan/build_plan.h"
#include "plan/lower_overlap.h"
#include "plan/lower_pex.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"
#include "schedule/order_best.h"

namespace tinyfit::mcu {

Result<CheckedModel> load_checked_model(std::string_view model) {
  TINYFIT_ASSIGN_OR_RETURN(ir::Graph graph, import::import_model(model));
  std::vector<exec::TensorData> inputs;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const ir::Tensor& tensor = graph.tensor(graph.inputs[i]);
    // The seeds `tinyfit run` uses: input i gets 12345 + i.
    inputs.push_back(exec::make_golden_input(tensor.dtype, tensor.shape, 12345u + static_cast<uint32_t>(i)));
  }
  return make_checked_model(std::move(graph), std::move(inputs));
}

Result<CheckedModel> make_checked_model(ir::Graph graph, std::vector<exec::TensorData> inputs) {
  CheckedModel m;
  TINYFIT_ASSIGN_OR_RETURN(m.reference, exec::run_reference(graph, inputs));
  m.graph = std::move(graph);
  m.inputs = std::move(inputs);
  return m;
}

std::string_view technique_name(Technique technique) {
  switch (technique) {
    case Technique::kOrdinary: return "ordinary";
    case Technique::kPex: return "pex";
    case Technique::kInplace: return "inplace";
    case Technique::kOverlap: return "overlap";
    case Technique::kMotes: return "motes";
  }
  return "?";
}

namespace {

// The plan of `order_name`'s order, with the in-place merges chosen together
// with it when `inplace`.
plan::Plan build_ordered_plan(const ir::Graph& graph, const std::string& order_name, bool inplace) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  const schedule::OrderAlgorithm* algorithm = schedule::find_order_algorithm(order_name);
  TINYFIT_CHECK(algorithm != nullptr) << "no order algorithm " << order_name;
  schedule::OrderOptions order_options;
  order_options.inplace = inplace;
  const schedule::OrderResult ordered = algorithm->run(bg, order_options);
  return plan::build_operator_plan(
      graph, inplace ? analysis::apply_inplace_choices(bg, ordered.order, ordered.inplace_choices).graph : bg,
      ordered.order);
}

}  // namespace

Result<plan::Plan> build_technique_plan(const ir::Graph& graph, Technique technique) {
  plan::Plan plan;
  switch (technique) {
    case Technique::kPex: {
      TINYFIT_ASSIGN_OR_RETURN(plan::PexResult pex, plan::build_pex_plan(graph, plan::PexOptions{}));
      plan = std::move(pex.plan);
      break;
    }
    case Technique::kOverlap:
      for (bool inplace : {false, true}) {
        plan::Plan candidate = plan::apply_overlap(graph, build_ordered_plan(graph, "best", inplace)).plan;
        TINYFIT_RETURN_IF_ERROR(plan::place_plan(candidate, "best", {}));
        if (plan.buffers.empty() || candidate.arena_bytes < plan.arena_bytes) plan = std::move(candidate);
      }
      break;
    case Technique::kMotes: {
      // The compile's own candidate, placed as it places it; the caller
      // executes and checks it, so the compile does not.
      driver::CompileOptions options;
      options.techniques.pex = false;
      options.execute = false;
      TINYFIT_ASSIGN_OR_RETURN(driver::CompileReport report, driver::compile_model(graph, options));
      const auto motes = std::find_if(report.candidates.begin(), report.candidates.end(), [](const auto& c) {
        return c.rank == driver::LatencyRank::kMotes && c.built;
      });
      if (motes == report.candidates.end()) return fail("no motes plan within the default latency budget");
      plan = std::move(motes->plan);
      break;
    }
    case Technique::kOrdinary: plan = build_ordered_plan(graph, "given", false); break;
    case Technique::kInplace: plan = build_ordered_plan(graph, "best", true); break;
  }
  if (technique != Technique::kOverlap && technique != Technique::kMotes) {
    TINYFIT_RETURN_IF_ERROR(plan::place_plan(plan, "greedy-by-size", {}));
  }
  TINYFIT_RETURN_IF_ERROR(plan::verify_plan(graph, plan));
  return plan;
}

}  // namespace tinyfit::mcu

namespace tinyfit::mcu {

std::string describe_byte_difference(const std::vector<uint8_t>& actual, const exec::TensorData& expected) {
  if (actual.size() != expected.bytes.size()) {
    return std::to_string(actual.size()) + " bytes, expected " + std::to_string(expected.bytes.size());
  }
  const auto element_bytes = static_cast<size_t>(ir::dtype_size_bytes(expected.dtype));
  size_t differing = 0, first = 0;
  for (size_t i = 0; i < actual.size(); i += element_bytes) {
    if (std::equal(actual.begin() + static_cast<std::ptrdiff_t>(i),
                   actual.begin() + static_cast<std::ptrdiff_t>(i + element_bytes),
                   expected.bytes.begin() + static_cast<std::ptrdiff_t>(i))) {
      continue;
    }
    if (differing++ == 0) first = i / element_bytes;
  }
  if (differing == 0) return {};
  return std::to_string(differing) + " of " + std::to_string(actual.size() / element_bytes) +
         " elements differ, first at flat index " + std::to_string(first);
}

}  // namespace tinyfit::mcu
