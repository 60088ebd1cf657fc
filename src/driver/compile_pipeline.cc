// The compile pipeline as one ordered list of passes (STYLE.md rule 2). Each
// pass is one call with the reason it sits where it does; the passes live in
// their own files (compile_candidate, compile_choice, compile_verify).
#include "driver/compile_pipeline.h"

#include <chrono>
#include <filesystem>

#include "analysis/memory_profile.h"
#include "codegen/emit_model.h"
#include "cost/cost_table.h"
#include "driver/compile_choice.h"
#include "driver/schedule_names.h"
#include "driver/widen_weights.h"
#include "plan/plan_walk.h"
#include "plan/verify_plan.h"
#include "schedule/order_best.h"
#include "schedule/order_peak.h"
#include "support/byte_size.h"

namespace tinyfit::driver {
namespace {

// The default name of generated C symbols: a file's stem ("kws_ref_model_int8"
// of ".../kws_ref_model_int8.tflite") or a zoo name ("mobilenetv2-224-int8");
// the emitter makes it a C identifier. Graph names are often "main" or empty.
std::string name_model_for_c(const std::string& source_path) {
  constexpr std::string_view kZoo = "zoo:";
  if (source_path.starts_with(kZoo)) return source_path.substr(kZoo.size());
  return std::filesystem::path(source_path).stem().string();
}

// The operator order a plan runs: each operator of `bg` by the first call of
// its node (a loop runs its nodes chunk by chunk, interleaved; the first chunk
// of a producer always precedes its consumers' first calls).
analysis::Order find_plan_order(const analysis::BufferGraph& bg, const plan::Plan& plan) {
  std::vector<int> operator_of_node;
  for (size_t op = 0; op < bg.operators.size(); ++op) {
    const auto node = static_cast<size_t>(bg.operators[op].node);
    if (operator_of_node.size() <= node) operator_of_node.resize(node + 1, -1);
    operator_of_node[node] = static_cast<int>(op);
  }
  std::vector<bool> listed(bg.operators.size(), false);
  analysis::Order order;
  auto visit = [&](const plan::KernelCall& call) {
    // A copy computes no node; a fused call computes several, in order.
    for (ir::NodeId id : call.computed_nodes()) {
      const auto node = static_cast<size_t>(id);
      const int op = node < operator_of_node.size() ? operator_of_node[node] : -1;
      TINYFIT_CHECK(op >= 0) << "plan calls node " << id << ", which has no operator";
      if (listed[static_cast<size_t>(op)]) continue;
      listed[static_cast<size_t>(op)] = true;
      order.push_back(op);
    }
  };
  const Status walked = plan::walk_calls(plan.steps, [&](const plan::KernelCall& call, plan::LoopNest) -> Status {
    visit(call);
    return {};
  });
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
  TINYFIT_CHECK(analysis::is_topological_order(bg, order)) << "the plan does not run every operator once, in order";
  return order;
}

// The reported plan's peak: the call at its peak position and the buffers
// live there, largest first.
Bottleneck describe_plan_bottleneck(const ir::Graph& graph, const CompileCandidate& c) {
  Bottleneck b;
  if (c.memory.positions.empty()) return b;
  b.step = c.memory.peak_position;
  const plan::KernelCall& call = plan::call_at(c.plan, c.memory.positions[static_cast<size_t>(b.step)]);
  if (call.node >= 0) {
    const ir::Node& node = graph.nodes.at(static_cast<size_t>(call.node));
    b.node = node.name;
    b.op = std::string(ir::op_type_name(node.op));
  } else {
    b.node = "copy";
    b.op = "Copy";
  }
  for (plan::BufferId id : plan::live_buffers_at(c.memory, b.step)) {
    const plan::PlanBuffer& buffer = c.plan.buffers[static_cast<size_t>(id)];
    b.tensors.push_back({buffer.name, buffer.bytes});
  }
  return b;
}

// Reduced-precision accumulators (PEX §3.4) are not exact by design.
bool is_exact_plan(const plan::Plan& plan) {
  bool exact = true;
  const Status walked = plan::walk_calls(plan.steps, [&](const plan::KernelCall& call, plan::LoopNest) -> Status {
    exact = exact && call.accumulator_bits >= 32;
    return {};
  });
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
  return exact;
}

}  // namespace

double CompileReport::macs_ratio() const {
  return ordinary().macs == 0 ? 1.0 : static_cast<double>(result().macs) / static_cast<double>(ordinary().macs);
}

Result<CompileReport> compile_model(const ir::Graph& graph, const CompileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CompileReport report;
  report.model = graph.source_path;
  report.sram_bytes = options.sram_bytes;
  report.latency_budget = options.latency_budget;
  report.flash_bytes = graph.flash_bytes();
  report.flash_budget = options.flash_bytes;
  report.accumulator_bits = options.accumulator_bits;
  report.target = options.target;
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  auto add = [&report](CompileCandidate candidate) { report.candidates.push_back(std::move(candidate)); };

  // 1. ordinary: the model's order, whole operators, no in-place: the
  //    baseline every paper and every figure is compared against.
  const analysis::Order given = analysis::given_order(bg);
  TINYFIT_ASSIGN_OR_RETURN(CompileCandidate ordinary, build_operator_candidate(graph, bg, given, "", {}, options));
  add(std::move(ordinary));

  const bool ordering = options.techniques.order && options.order != "given";
  // --time-limit is shared by the searches that follow, one after another:
  // each gets an equal part of what is left (Deadline::share), so that one
  // search that would run to the limit (PEX's scheduler on NAS cells) does
  // not leave the later ones (motes, the overlap placements) no time.
  int searches_left = (ordering ? 1 : 0) + (options.techniques.inplace ? 1 : 0) + (options.techniques.pex ? 1 : 0) +
                      (options.techniques.motes ? 1 : 0) + (options.techniques.overlap ? 1 : 0);
  // The limit bounds the whole compile: the searches share it less
  // kKeptForAfterSearches, kept for the work after the deadline they poll
  // (each search lowers and places the last state it took, then the chosen
  // plan is verified by execution and emitted). The NAS CIFAR nets, whose
  // searches all run to the limit, took 61.5 to 63.3 s with no share kept,
  // and nasnet-a-cifar 61.0 s with a tenth kept (its lowering, placement and
  // verification after the searches take about 7 s).
  constexpr double kKeptForAfterSearches = 0.15;
  const Deadline searches_deadline = options.deadline.keeping(kKeptForAfterSearches);
  auto next_search_options = [&]() {
    CompileOptions part = options;
    part.deadline = searches_deadline.share(searches_left--);
    return part;
  };

  // The --order search (exact / hierarchical / best), polled against its
  // part of --time-limit; with `inplace` it chooses the order and the
  // in-place merges together. Without ordering, the model's order (and its
  // merges).
  auto search_order = [&](bool inplace, const Deadline& deadline) {
    if (!ordering) {
      schedule::ScoredOrder scored = schedule::score_order(bg, given, inplace);
      schedule::OrderResult result;
      result.order = std::move(scored.order);
      result.inplace_choices = std::move(scored.inplace_choices);
      result.peak_bytes = scored.peak_bytes;
      return result;
    }
    const schedule::OrderAlgorithm* algorithm = schedule::find_order_algorithm(options.order);
    TINYFIT_CHECK(algorithm != nullptr) << "unknown order '" << options.order << "'";
    schedule::OrderOptions order_options;
    order_options.inplace = inplace;
    order_options.deadline = deadline;
    if (options.progress) {
      const std::string phase = inplace ? "ordering with in-place" : "ordering";
      order_options.progress = [progress = options.progress, phase](double f) { progress(phase, f); };
    }
    schedule::OrderResult ordered = algorithm->run(bg, order_options);
    TINYFIT_CHECK(analysis::is_topological_order(bg, ordered.order)) << "order '" << options.order << "'";
    return ordered;
  };
  auto describe_order = [](const schedule::OrderResult& ordered) {
    return (ordered.optimal ? "optimal order" : "order not proven optimal") +
           (ordered.note.empty() ? "" : ": " + ordered.note);
  };
  const std::string order_name = ordering ? options.order : "";

  // 2. order: the plain search. Same calls as ordinary: no latency cost.
  //    Its order is also where the motes search starts.
  analysis::Order plain_order = given;
  if (ordering) {
    const CompileOptions part = next_search_options();
    const schedule::OrderResult ordered = search_order(false, part.deadline);
    plain_order = ordered.order;
    TINYFIT_ASSIGN_OR_RETURN(CompileCandidate c,
                             build_operator_candidate(graph, bg, ordered.order, order_name, {}, part));
    c.note = describe_order(ordered);
    add(std::move(c));
  }

  // 3. inplace: the order chosen with its merges (they depend on where
  //    inputs die), so "optimal" covers the plan that is built.
  if (options.techniques.inplace) {
    const CompileOptions part = next_search_options();
    const schedule::OrderResult ordered = search_order(true, part.deadline);
    TINYFIT_ASSIGN_OR_RETURN(CompileCandidate c, build_operator_candidate(graph, bg, ordered.order, order_name,
                                                                          ordered.inplace_choices, part));
    if (ordering) c.note = describe_order(ordered);
    add(std::move(c));
  }

  // 4. pex: partial-execution loops, composed with in-place when allowed;
  //    under --sram each loop takes the largest tile that fits. Skipped and
  //    reported when the scheduler is not built yet.
  if (options.techniques.pex) {
    TINYFIT_ASSIGN_OR_RETURN(CompileCandidate c,
                             build_pex_candidate(graph, options.techniques.inplace, next_search_options()));
    add(std::move(c));
  }

  // 5. motes: row loops where the memory bottleneck is, within the latency
  //    budget; after the plain orders, whose order its search starts from.
  if (options.techniques.motes) {
    TINYFIT_ASSIGN_OR_RETURN(CompileCandidate c, build_motes_candidate(graph, bg, plain_order,
                                                                       report.ordinary().predicted_instructions,
                                                                       next_search_options()));
    add(std::move(c));
  }

  // 6. overlap: segment-level overlap (vMCU) on the plans above (the chosen
  //    order, in place or not, PEX, and MOTES's row-loop plan, outside its
  //    loops): fused inverted bottlenecks and outputs over the inputs they
  //    consume, placed again; within the latency budget where it can be.
  if (options.techniques.overlap) {
    const CompileOptions part = next_search_options();
    const size_t built = report.candidates.size();
    for (size_t i = built > 1 ? 1 : 0; i < built; ++i) {  // the order's plan replaces ordinary's
      if (!report.candidates[i].built) continue;
      TINYFIT_ASSIGN_OR_RETURN(std::optional<CompileCandidate> c,
                               build_overlap_candidate(graph, report.candidates[i],
                                                               report.ordinary().predicted_instructions, part));
      if (!c) continue;
      add(std::move(*c));
    }
  }

  // 7. choose: the smallest arena within the latency budget, or under --sram
  //    the least latency overhead.
  report.chosen = choose_candidate(report.candidates, options.sram_bytes, options.latency_budget);
  report.reported = report.chosen ? *report.chosen : find_smallest_candidate(report.candidates);

  // 7b. flash: under --flash, the chosen plan's convolutions whose
  //     widened weights save the most predicted instructions per byte, as
  //     many as the budget holds (widen_weights.h); a program whose own
  //     const data exceeds the budget does not fit (exit 3). Widening
  //     changes no buffer, so the choice above stands.
  if (options.flash_bytes && report.chosen) {
    CompileCandidate& chosen = report.candidates.at(*report.chosen);
    TINYFIT_ASSIGN_OR_RETURN(const cost::CostTable* table, cost::find_cost_table(options.target));
    TINYFIT_ASSIGN_OR_RETURN(WidenedWeights widened,
                             widen_weights_within(graph, chosen.plan, *table, *options.flash_bytes));
    if (widened.const_bytes_before > *options.flash_bytes) {
      return fail("does not fit --flash " + format_thousands(*options.flash_bytes) + " bytes: the program's const data (" +
                      chosen.name + ") takes " + format_thousands(widened.const_bytes_before) + " bytes",
                  ExitCode::kDoesNotFit);
    }
    report.const_data_bytes = widened.const_bytes;
    report.flash_note = std::to_string(widened.widened) + " of " + std::to_string(widened.widenable) +
                        " convolutions' weights widened (+" +
                        format_thousands(widened.const_bytes - widened.const_bytes_before) + " bytes, about " +
                        format_thousands(static_cast<int64_t>(widened.saved_instructions)) +
                        " predicted instructions fewer)";
    if (!widened.unmeasured.empty()) {
      report.flash_note += "; not offered, unmeasured: " + widened.unmeasured.front() +
                           (widened.unmeasured.size() > 1 ? " and others" : "");
    }
    if (widened.widened > 0) {
      chosen.plan = std::move(widened.plan);
      if (chosen.predicted_instructions) *chosen.predicted_instructions -= widened.saved_instructions;
    }
  }
  const CompileCandidate& result = report.result();
  report.bottleneck = describe_plan_bottleneck(graph, result);
  report.schedule = list_schedule_names(graph, bg, find_plan_order(bg, result.plan));
  auto finish = [&]() {
    report.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (!report.fits()) {  // exit 3 at the edge, with describe_shortfall
    finish();
    return report;
  }

  // 8. verify-plan: structure, bounds, dataflow and placement, once, before
  //    anything runs or is emitted (IREE's verify at phase borders).
  //    A plan that fails it is our bug: internal error, exit 70.
  const Status valid = plan::verify_plan(graph, result.plan);
  TINYFIT_CHECK(valid) << valid.error().message;

  // 9. execute: the plan in a poisoned arena of exactly arena_bytes against
  //    the reference interpreter; only this sets verified.
  if (options.execute) {
    TINYFIT_ASSIGN_OR_RETURN(report.verification,
                             verify_by_execution(graph, result.plan, options.seed, is_exact_plan(result.plan)));
  } else {
    report.verification.note = "not executed (--no-verify)";
  }

  // 10. emit-c: model.c / model.h with one static arena of exactly arena_bytes,
  //    the model's inputs and outputs in it (zero copy), and a CMakeLists.txt.
  if (!options.emit_dir.empty()) {
    codegen::EmitOptions emit_options;
    emit_options.name = options.emit_name.empty() ? name_model_for_c(graph.source_path) : options.emit_name;
    TINYFIT_ASSIGN_OR_RETURN(const codegen::EmittedModel emitted,
                             codegen::emit_c_model(graph, result.plan, emit_options));
    TINYFIT_RETURN_IF_ERROR(codegen::write_emitted_model(emitted, options.emit_dir));
    report.emitted_dir = options.emit_dir;
    report.emitted_prefix = emitted.prefix;
    for (const codegen::EmittedFile& file : emitted.files) report.emitted_files.push_back(file.path);
  }
  finish();
  return report;
}

std::string describe_shortfall(const CompileReport& report) {
  TINYFIT_CHECK(!report.fits() && report.sram_bytes) << "describe_shortfall of a plan that fits";
  const CompileCandidate& c = report.result();
  const Bottleneck& b = report.bottleneck;
  std::string line = "does not fit --sram " + format_thousands(*report.sram_bytes) + " bytes: the smallest plan (" +
                     c.name + ") needs an arena of " + format_thousands(c.arena_bytes) + " bytes, " +
                     format_thousands(c.arena_bytes - *report.sram_bytes) + " bytes short; bottleneck at step " +
                     std::to_string(b.step) + ", node '" + b.node + "' (" + b.op + "), live tensors:";
  constexpr size_t kListed = 4;  // one line: the largest few, then a count
  for (size_t i = 0; i < b.tensors.size() && i < kListed; ++i) {
    line += (i == 0 ? " " : ", ") + b.tensors[i].name + " " + format_thousands(b.tensors[i].bytes);
  }
  if (b.tensors.size() > kListed) line += " and " + std::to_string(b.tensors.size() - kListed) + " more";
  return line;
}

}  // namespace tinyfit::driver
