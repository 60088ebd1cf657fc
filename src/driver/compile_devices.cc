#include "driver/compile_devices.h"

#include <numeric>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "cost/cost_table.h"
#include "devices/build_device_plan.h"
#include "devices/choose_k1k2.h"
#include "devices/choose_min_memory.h"
#include "devices/execute_device_plan.h"
#include "exec/reference_interpreter.h"
#include "support/byte_size.h"

namespace tinyfit::driver {
namespace {

Result<Verification> verify_on_devices(const ir::Graph& graph, const devices::DevicePlan& plan, uint32_t seed) {
  std::vector<exec::TensorData> inputs;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const ir::Tensor& t = graph.tensor(graph.inputs[i]);
    inputs.push_back(exec::make_golden_input(t.dtype, t.shape, seed + static_cast<uint32_t>(i)));
  }
  TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> expected, exec::run_reference(graph, inputs));
  TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> actual, devices::execute_device_plan(graph, plan, inputs));
  Verification v = compare_with_reference(graph, actual, expected, /*exact=*/true);
  v.note = "every device in its own poisoned arena of exactly its size; outputs equal the reference";
  return v;
}

}  // namespace

std::vector<int> DeviceCompileReport::count_over_limit() const {
  std::vector<int> over;
  const devices::DeviceLimits& limits = options_limits;
  for (int d = 0; d < plan.count_devices(); ++d) {
    const auto& device = plan.devices[static_cast<size_t>(d)];
    const bool sram = device.arena_bytes > limits.sram_bytes[static_cast<size_t>(d)];
    const bool flash = !limits.flash_bytes.empty() && limits.flash_bytes[static_cast<size_t>(d)] > 0 &&
                       device.flash_bytes > limits.flash_bytes[static_cast<size_t>(d)];
    if (sram || flash) over.push_back(d);
  }
  return over;
}

Result<DeviceCompileReport> compile_on_devices(const ir::Graph& graph, const DeviceCompileOptions& options) {
  DeviceCompileReport report;
  report.model = graph.source_path;
  report.options_limits = options.limits;
  report.partition = options.partition;
  {
    const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
    report.single_device_peak_bytes = analysis::compute_memory_profile(bg, analysis::given_order(bg)).peak_bytes;
  }
  std::vector<ir::NodeId> order(graph.nodes.size());
  std::iota(order.begin(), order.end(), 0);
  report.device_mhz = options.device_mhz;
  report.target = options.target;
  TINYFIT_ASSIGN_OR_RETURN(const cost::CostTable* table, cost::find_cost_table(options.target));
  devices::LatencyModel model;
  model.table = table;
  model.instructions_per_second = options.device_mhz * 1e6;
  model.link_bytes_per_second = options.limits.link_bytes_per_second;
  devices::PartPredictor predictor(graph, *table);
  std::vector<devices::OperatorChoice> choices;
  if (options.partition == "search") {
    if (model.link_bytes_per_second <= 0 || options.device_mhz <= 0) {
      return fail("--partition search needs --link-bytes-per-second (the link's rate) and a positive --device-mhz",
                  ExitCode::kBadCommandLine);
    }
    TINYFIT_ASSIGN_OR_RETURN(devices::SearchResult searched,
                             devices::search_partition(graph, order, options.limits, model, predictor));
    choices = std::move(searched.choices);
    report.search_candidates = std::move(searched.candidates);
    report.search_chosen = searched.chosen;
  } else if (options.partition == "min-memory") {
    choices = devices::choose_min_memory(graph, order, options.limits);
  } else {
    choices = devices::choose_by_k1k2(graph, order, options.limits);
  }
  TINYFIT_ASSIGN_OR_RETURN(report.plan,
                           devices::build_device_plan(graph, choices, options.limits.count_devices()));
  devices::place_device_buffers(report.plan);
  report.memory = devices::compute_device_memory(report.plan);
  if (Result<devices::PlanLatency> latency = devices::predict_plan_latency(report.plan, model, predictor)) {
    report.latency = std::move(*latency);
  } else {
    report.latency_error = latency.error().message;
  }
  if (report.latency) {
    // One device running every operator whole, the same kernels: the speedup's base.
    std::vector<devices::OperatorChoice> whole;
    for (ir::NodeId id : order) whole.push_back({id, devices::Split::kWhole, {0}});
    devices::LatencyModel one = model;
    TINYFIT_ASSIGN_OR_RETURN(const devices::DevicePlan alone, devices::build_device_plan(graph, whole, 1));
    if (Result<devices::PlanLatency> latency = devices::predict_plan_latency(alone, one, predictor)) {
      report.one_device_seconds = latency->seconds;
    }
  }
  if (options.execute) {
    TINYFIT_ASSIGN_OR_RETURN(report.verification, verify_on_devices(graph, report.plan, options.seed));
  } else {
    report.verification.note = "not executed (--no-verify)";
  }
  return report;
}

std::string describe_device_shortfall(const DeviceCompileReport& report) {
  std::string text;
  for (int d : report.count_over_limit()) {
    const auto& device = report.plan.devices[static_cast<size_t>(d)];
    const int64_t sram = report.options_limits.sram_bytes[static_cast<size_t>(d)];
    if (!text.empty()) text += "; ";
    text += "device " + std::to_string(d) + ": ";
    if (device.arena_bytes > sram) {
      text += "arena " + format_thousands(device.arena_bytes) + " bytes > SRAM " + format_thousands(sram) +
              " (short by " + format_thousands(device.arena_bytes - sram) + ")";
    } else {
      text += "flash " + format_thousands(device.flash_bytes) + " bytes > " +
              format_thousands(report.options_limits.flash_bytes[static_cast<size_t>(d)]);
    }
  }
  return "does not fit the devices with the " + report.partition + " partition: " + text;
}

}  // namespace tinyfit::driver
