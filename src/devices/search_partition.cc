#include "devices/search_partition.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "devices/build_device_plan.h"
#include "devices/choose_k1k2.h"
#include "devices/choose_min_memory.h"
#include "devices/device_memory.h"
#include "devices/part_boxes.h"
#include "devices/split_support.h"

namespace tinyfit::devices {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct PartOf {
  DeviceId device = 0;
  Box box;
};

// One device's part of a candidate: what it writes and reads, and its
// predicted instructions.
struct CandidatePart {
  DeviceId device = 0;
  std::vector<Box> outputs;
  std::vector<Box> inputs;  // per node input; empty for a constant
  double instructions = 0;
  int64_t output_bytes = 0;
};

struct Candidate {
  OperatorChoice choice;
  std::vector<CandidatePart> parts;
};

std::vector<CandidatePart> make_parts(const ir::Graph& graph, const OperatorChoice& c) {
  const ir::Node& node = graph.nodes[static_cast<size_t>(c.node)];
  std::vector<CandidatePart> parts;
  const int count = static_cast<int>(c.devices.size());
  for (int p = 0; p < count; ++p) {
    CandidatePart part;
    part.device = c.devices[static_cast<size_t>(p)];
    for (ir::TensorId out : node.outputs) {
      part.outputs.push_back(compute_part_box(graph.tensor(out).shape, c.split, p, count));
      part.output_bytes += part.outputs.back().count_elements() * ir::dtype_size_bytes(graph.tensor(out).dtype);
    }
    if (part.outputs[0].is_empty()) continue;
    part.inputs = compute_input_boxes(graph, node, part.outputs[0]);
    if (c.split == Split::kWhole) {  // whole kernels read whole inputs (build_device_plan.cc)
      for (size_t i = 0; i < part.inputs.size(); ++i) {
        if (!part.inputs[i].axes.empty()) part.inputs[i] = make_full_box(graph.input_tensor(node, i).shape);
      }
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

// The parts of tensor `t` a producer choice makes (a graph input: whole on device 0).
std::vector<PartOf> parts_of_tensor(const ir::Graph& graph, ir::TensorId t, const OperatorChoice* producer) {
  const ir::Shape& shape = graph.tensor(t).shape;
  if (producer == nullptr) return {{0, make_full_box(shape)}};
  std::vector<PartOf> parts;
  const int count = static_cast<int>(producer->devices.size());
  for (int p = 0; p < count; ++p) {
    Box box = compute_part_box(shape, producer->split, p, count);
    if (!box.is_empty()) parts.push_back({producer->devices[static_cast<size_t>(p)], std::move(box)});
  }
  return parts;
}

// What reading box `need` of a tensor made as `parts` costs device `e`
// (build_device_plan's buffers and transfers for one consumer).
struct ReadCost {
  int64_t link_bytes = 0;
  int64_t buffer_bytes = 0;  // the buffers it reads from (and its own part when held apart)
  Box local_copy;            // empty: none
};
ReadCost cost_read(const std::vector<PartOf>& parts, DeviceId e, const Box& need, int64_t element_bytes) {
  ReadCost cost;
  const PartOf* own = nullptr;
  for (const PartOf& part : parts) {
    if (part.device == e) {
      own = &part;
      continue;
    }
    cost.link_bytes += intersect_boxes(part.box, need).count_elements() * element_bytes;
  }
  if (own == nullptr) {
    cost.buffer_bytes = need.count_elements() * element_bytes;
  } else if (own->box.contains(need)) {
    cost.buffer_bytes = own->box.count_elements() * element_bytes;
  } else {
    const Box merged = bound_boxes(own->box, need);
    if (merged.count_elements() <= own->box.count_elements() + need.count_elements()) {
      cost.buffer_bytes = merged.count_elements() * element_bytes;
    } else {
      cost.buffer_bytes = (own->box.count_elements() + need.count_elements()) * element_bytes;
      cost.local_copy = intersect_boxes(own->box, need);
    }
  }
  return cost;
}

class Dp {
 public:
  Dp(const ir::Graph& graph, const std::vector<ir::NodeId>& order, const DeviceLimits& limits,
     const LatencyModel& model, PartPredictor& predictor, double budget_fraction)
      : graph_(graph), order_(order), limits_(limits), model_(model), predictor_(predictor),
        budget_fraction_(budget_fraction) {
    position_.assign(graph.nodes.size(), -1);
    for (size_t i = 0; i < order.size(); ++i) position_[static_cast<size_t>(order[i])] = static_cast<int>(i);
    producer_.assign(graph.tensors.size(), -1);
    for (const ir::Node& node : graph.nodes) {
      for (ir::TensorId t : node.outputs) producer_[static_cast<size_t>(t)] = static_cast<int>(&node - graph.nodes.data());
    }
  }

  Result<DpResult> run() {
    const size_t steps = order_.size();
    DpResult result;
    if (steps == 0) return result;
    candidates_.resize(steps);
    for (size_t i = 0; i < steps; ++i) TINYFIT_RETURN_IF_ERROR(list_candidates(i));
    value_.resize(steps);
    back_.resize(steps);
    for (size_t i = 0; i < steps; ++i) {
      const bool admitted = relax(i, true);
      if (!admitted) {
        result.within_local_budget = false;
        relax(i, false);
      }
    }
    // The final stage: the graph outputs gathered on device 0.
    const size_t last = steps - 1;
    double best = kInfinity;
    int best_c = -1;
    for (size_t c = 0; c < candidates_[last].size(); ++c) {
      if (!std::isfinite(value_[last][c])) continue;
      const double total = value_[last][c] + cost_final(last, static_cast<int>(c));
      if (total < best) {
        best = total;
        best_c = static_cast<int>(c);
      }
    }
    TINYFIT_CHECK(best_c >= 0) << "latency DP: no finite plan";
    result.seconds = best;
    std::vector<int> chosen = walk_back(last, best_c);
    for (size_t i = 0; i < steps; ++i) result.choices.push_back(candidates_[i][static_cast<size_t>(chosen[i])].choice);
    return result;
  }

 private:
  Status list_candidates(size_t i) {
    const ir::NodeId id = order_[i];
    std::string first_error;
    for (const OperatorChoice& choice : list_operator_choices(graph_, id, limits_)) {
      Candidate c{choice, make_parts(graph_, choice)};
      bool predicted = true;
      for (CandidatePart& part : c.parts) {
        Result<double> instructions = predictor_.predict_part(id, choice.split, part.outputs, part.inputs);
        if (!instructions) {
          if (first_error.empty()) first_error = instructions.error().message;
          predicted = false;
          break;
        }
        part.instructions = *instructions;
      }
      if (predicted) candidates_[i].push_back(std::move(c));
    }
    if (candidates_[i].empty()) {
      return fail("latency search: no choice of node '" + graph_.nodes[static_cast<size_t>(id)].name +
                      "' can be predicted: " + first_error,
                  ExitCode::kBadCommandLine);
    }
    return {};
  }

  // The candidate index of node `i`'s choice on the best path ending in
  // candidate `c` of step `from` (from >= i).
  int find_on_path(size_t from, int c, size_t i) const {
    while (from > i) {
      c = back_[from][static_cast<size_t>(c)];
      --from;
    }
    return c;
  }

  std::vector<int> walk_back(size_t from, int c) const {
    std::vector<int> path(from + 1);
    for (size_t i = from + 1; i-- > 0;) {
      path[i] = c;
      if (i > 0) c = back_[i][static_cast<size_t>(c)];
    }
    return path;
  }

  const OperatorChoice* producer_choice(ir::TensorId t, size_t from, int c_prev) const {
    const int producer = producer_[static_cast<size_t>(t)];
    if (producer < 0) return nullptr;  // a graph input
    const auto at = static_cast<size_t>(position_[static_cast<size_t>(producer)]);
    return &candidates_[at][static_cast<size_t>(find_on_path(from, c_prev, at))].choice;
  }

  // The stage of candidate `c` of step `i` when its inputs were made by
  // `producers` (one per node input; nullptr for graph inputs and
  // constants). +infinity when a device's buffers exceed the local budget
  // and `check_memory`.
  double cost_stage(size_t i, const Candidate& c, const std::vector<const OperatorChoice*>& producers,
                    bool check_memory) const {
    const ir::Node& node = graph_.nodes[static_cast<size_t>(order_[i])];
    int64_t link_bytes = 0;
    double slowest = 0;
    for (const CandidatePart& part : c.parts) {
      double instructions = part.instructions;
      int64_t memory = part.output_bytes;
      for (size_t j = 0; j < node.inputs.size(); ++j) {
        if (part.inputs[j].axes.empty()) continue;
        const ir::TensorId t = node.inputs[j];
        const ReadCost read = cost_read(parts_of_tensor(graph_, t, producers[j]), part.device, part.inputs[j],
                                        ir::dtype_size_bytes(graph_.tensor(t).dtype));
        link_bytes += read.link_bytes;
        memory += read.buffer_bytes;
        if (!read.local_copy.is_empty()) instructions += copy_instructions(read.local_copy);
      }
      if (check_memory &&
          static_cast<double>(memory) > budget_fraction_ * static_cast<double>(limits_.sram_bytes[static_cast<size_t>(part.device)])) {
        return kInfinity;
      }
      slowest = std::max(slowest, instructions);
    }
    return link_seconds(link_bytes) + slowest / model_.instructions_per_second;
  }

  double cost_final(size_t last, int c) const {
    int64_t link_bytes = 0;
    for (ir::TensorId t : graph_.outputs) {
      const OperatorChoice* producer = producer_choice(t, last, c);
      const ReadCost read = cost_read(parts_of_tensor(graph_, t, producer), 0, make_full_box(graph_.tensor(t).shape),
                                      ir::dtype_size_bytes(graph_.tensor(t).dtype));
      link_bytes += read.link_bytes;
    }
    return link_seconds(link_bytes);
  }

  double link_seconds(int64_t bytes) const {
    return model_.link_bytes_per_second > 0
               ? static_cast<double>(bytes) / static_cast<double>(model_.link_bytes_per_second)
               : 0.0;
  }

  double copy_instructions(const Box& box) const {
    const Result<double> copy = predictor_.predict_copy(box);
    return copy ? *copy : kInfinity;
  }

  // Fills value_[i] and back_[i]; false when no candidate was admitted.
  bool relax(size_t i, bool check_memory) {
    const ir::Node& node = graph_.nodes[static_cast<size_t>(order_[i])];
    const size_t count = candidates_[i].size();
    value_[i].assign(count, kInfinity);
    back_[i].assign(count, -1);
    std::vector<size_t> previous;  // the previous step's reachable candidates (step 0: one virtual)
    if (i == 0) {
      previous.push_back(0);
    } else {
      for (size_t p = 0; p < candidates_[i - 1].size(); ++p) {
        if (std::isfinite(value_[i - 1][p])) previous.push_back(p);
      }
    }
    bool admitted = false;
    for (size_t p : previous) {
      const double before = i == 0 ? 0.0 : value_[i - 1][p];
      std::vector<const OperatorChoice*> producers(node.inputs.size(), nullptr);
      for (size_t j = 0; j < node.inputs.size(); ++j) {
        if (!graph_.has_input(node, j) || graph_.input_tensor(node, j).is_constant) continue;
        producers[j] = i == 0 ? nullptr : producer_choice(node.inputs[j], i - 1, static_cast<int>(p));
      }
      for (size_t c = 0; c < count; ++c) {
        const double stage = cost_stage(i, candidates_[i][c], producers, check_memory);
        if (!std::isfinite(stage)) continue;
        admitted = true;
        if (before + stage < value_[i][c]) {
          value_[i][c] = before + stage;
          back_[i][c] = static_cast<int>(p);
        }
      }
    }
    return admitted;
  }

  const ir::Graph& graph_;
  const std::vector<ir::NodeId>& order_;
  const DeviceLimits& limits_;
  const LatencyModel& model_;
  PartPredictor& predictor_;
  double budget_fraction_;
  std::vector<int> position_;  // per node: its step
  std::vector<int> producer_;  // per tensor: its node, -1 for none
  std::vector<std::vector<Candidate>> candidates_;
  std::vector<std::vector<double>> value_;
  std::vector<std::vector<int>> back_;
};

struct BuiltCandidate {
  SearchCandidate summary;
  std::vector<OperatorChoice> choices;
};

Result<BuiltCandidate> evaluate(const ir::Graph& graph, std::string name, std::vector<OperatorChoice> choices,
                                const DeviceLimits& limits, const LatencyModel& model, PartPredictor& predictor) {
  TINYFIT_ASSIGN_OR_RETURN(DevicePlan plan, build_device_plan(graph, choices, limits.count_devices()));
  place_device_buffers(plan);
  TINYFIT_ASSIGN_OR_RETURN(const PlanLatency latency, predict_plan_latency(plan, model, predictor));
  BuiltCandidate built;
  built.summary.name = std::move(name);
  built.summary.seconds = latency.seconds;
  built.summary.excess_bytes = count_excess_bytes(plan, limits);
  built.choices = std::move(choices);
  return built;
}

}  // namespace

std::vector<OperatorChoice> list_operator_choices(const ir::Graph& graph, ir::NodeId id, const DeviceLimits& limits) {
  const int n = limits.count_devices();
  std::vector<DeviceId> by_size(static_cast<size_t>(n));
  std::iota(by_size.begin(), by_size.end(), 0);
  std::stable_sort(by_size.begin(), by_size.end(), [&](DeviceId a, DeviceId b) {
    return limits.sram_bytes[static_cast<size_t>(a)] > limits.sram_bytes[static_cast<size_t>(b)];
  });
  std::vector<int> counts;
  for (int k = 2; k < n; k = n > 8 ? 2 * k : k + 1) counts.push_back(k);
  if (n >= 2) counts.push_back(n);
  const ir::Node& node = graph.nodes[static_cast<size_t>(id)];
  std::vector<OperatorChoice> choices;
  for (DeviceId d = 0; d < n; ++d) choices.push_back({id, Split::kWhole, {d}});
  for (Split split : {Split::kRows, Split::kChannels, Split::kLength}) {
    for (int k : counts) {
      if (!serves_split(graph, node, split, k)) continue;
      std::vector<DeviceId> devices(by_size.begin(), by_size.begin() + k);
      std::sort(devices.begin(), devices.end());
      choices.push_back({id, split, std::move(devices)});
    }
  }
  return choices;
}

Result<DpResult> search_latency_dp(const ir::Graph& graph, const std::vector<ir::NodeId>& order,
                                   const DeviceLimits& limits, const LatencyModel& model, PartPredictor& predictor,
                                   double budget_fraction) {
  TINYFIT_CHECK(model.table != nullptr && budget_fraction > 0) << "search_latency_dp: bad model or budget";
  return Dp(graph, order, limits, model, predictor, budget_fraction).run();
}

int64_t count_excess_bytes(const DevicePlan& plan, const DeviceLimits& limits) {
  int64_t excess = 0;
  for (int d = 0; d < plan.count_devices(); ++d) {
    const DeviceArena& device = plan.devices[static_cast<size_t>(d)];
    excess = std::max(excess, device.arena_bytes - limits.sram_bytes[static_cast<size_t>(d)]);
    if (!limits.flash_bytes.empty() && limits.flash_bytes[static_cast<size_t>(d)] > 0) {
      excess = std::max(excess, device.flash_bytes - limits.flash_bytes[static_cast<size_t>(d)]);
    }
  }
  return excess;
}

Result<SearchResult> search_partition(const ir::Graph& graph, const std::vector<ir::NodeId>& order,
                                      const DeviceLimits& limits, const LatencyModel& model, PartPredictor& predictor) {
  std::vector<BuiltCandidate> built;
  const std::vector<std::pair<double, std::string>> fractions = {{1.0, "1"},     {0.75, "3/4"}, {0.5, "1/2"},
                                                                 {0.375, "3/8"}, {0.25, "1/4"}, {0.125, "1/8"}};
  for (const auto& [fraction, label] : fractions) {
    TINYFIT_ASSIGN_OR_RETURN(DpResult dp, search_latency_dp(graph, order, limits, model, predictor, fraction));
    TINYFIT_ASSIGN_OR_RETURN(BuiltCandidate candidate, evaluate(graph, "dp at " + label + " of SRAM",
                                                                std::move(dp.choices), limits, model, predictor));
    const bool fits = candidate.summary.fits();
    built.push_back(std::move(candidate));
    if (fits) break;  // a tighter budget only admits fewer choices
  }
  // Every operator whole on one device: device 0 (where the graph inputs and
  // outputs live: no link) and the device with the most SRAM. The DP's space
  // holds them, but on graphs with branches the DP is a heuristic and can
  // miss them.
  std::vector<std::pair<std::string, std::vector<OperatorChoice>>> baselines = {
      {"k1k2", choose_by_k1k2(graph, order, limits)}, {"min-memory", choose_min_memory(graph, order, limits)}};
  const DeviceId largest = static_cast<DeviceId>(
      std::max_element(limits.sram_bytes.begin(), limits.sram_bytes.end()) - limits.sram_bytes.begin());
  std::vector<DeviceId> homes = {0};
  if (largest != 0) homes.push_back(largest);
  for (DeviceId d : homes) {
    std::vector<OperatorChoice> alone;
    for (ir::NodeId id : order) alone.push_back({id, Split::kWhole, {d}});
    baselines.push_back({"one device (" + std::to_string(d) + ")", std::move(alone)});
  }
  for (auto& [name, choices] : baselines) {
    Result<BuiltCandidate> candidate = evaluate(graph, name, std::move(choices), limits, model, predictor);
    if (candidate) built.push_back(std::move(*candidate));  // a baseline the model cannot predict is left out
  }
  SearchResult result;
  int best = 0;
  for (size_t i = 0; i < built.size(); ++i) {
    const SearchCandidate& a = built[i].summary;
    const SearchCandidate& b = built[static_cast<size_t>(best)].summary;
    // Fitting first; then the smaller excess; then the faster.
    const bool better = a.fits() != b.fits()               ? a.fits()
                        : a.excess_bytes != b.excess_bytes ? a.excess_bytes < b.excess_bytes
                                                           : a.seconds < b.seconds;
    if (better) best = static_cast<int>(i);
    result.candidates.push_back(a);
  }
  result.chosen = best;
  result.choices = built[static_cast<size_t>(best)].choices;
  return result;
}

}  // namespace tinyfit::devices
