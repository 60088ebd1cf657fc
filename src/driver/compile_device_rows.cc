#include "driver/compile_device_rows.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "devices/balance_bands.h"
#include "exec/golden_inputs.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "ir/op_decl.h"
#include "support/byte_size.h"

namespace tinyfit::driver {
namespace {

constexpr int kRowAxis = 1;

// Rows [rows.begin, rows.end) of an NHWC tensor: one contiguous block.
int64_t row_bytes(const ir::Tensor& t) {
  return t.shape[2] * t.shape[3] * ir::dtype_size_bytes(t.dtype);
}

exec::TensorData crop_tensor_rows(const exec::TensorData& whole, ir::Range rows) {
  ir::Shape shape = whole.shape;
  shape[kRowAxis] = rows.size();
  exec::TensorData part = exec::TensorData::zeros(whole.dtype, shape);
  const int64_t per_row = static_cast<int64_t>(whole.bytes.size()) / whole.shape[kRowAxis];
  std::memcpy(part.bytes.data(), whole.bytes.data() + rows.begin * per_row, part.bytes.size());
  return part;
}

class RowsCompiler {
 public:
  RowsCompiler(const ir::Graph& graph, const RowsCompileOptions& options) : graph_(graph), options_(options) {}

  Result<RowsCompileReport> compile() {
    const int n = options_.limits.count_devices();
    report_.model = graph_.source_path;
    report_.limits = options_.limits;
    std::vector<int> cuts;
    for (int c = 1; c < static_cast<int>(graph_.nodes.size()); ++c) {
      if (devices::check_head(graph_, c, n)) cuts.push_back(c);
    }
    if (cuts.empty()) {
      TINYFIT_RETURN_IF_ERROR(devices::check_head(graph_, 1, n));
      return fail(graph_.source_path + ": no cut lets the devices compute the first operators by rows",
                  ExitCode::kBadCommandLine);
    }
    TINYFIT_ASSIGN_OR_RETURN(const size_t first, find_first_fitting_tail(cuts));
    // The bands grow with the cut (more operators, wider halos): the first
    // cut whose bands fit too, else the one whose largest arena is smallest.
    std::optional<RowsCompileReport> best;
    for (size_t i = first; i < cuts.size() && static_cast<int>(report_.cuts.size()) < options_.max_cuts + 4; ++i) {
      TINYFIT_ASSIGN_OR_RETURN(RowsCompileReport candidate, compile_cut(cuts[i]));
      const bool fits = candidate.fits();
      if (!best || fits || largest_excess(candidate) < largest_excess(*best)) best = std::move(candidate);
      if (fits || !tail_fits_) break;
    }
    RowsCompileReport result = std::move(*best);
    result.cuts = report_.cuts;
    TINYFIT_RETURN_IF_ERROR(predict(result));
    if (options_.execute) {
      TINYFIT_ASSIGN_OR_RETURN(result.verification, verify(result));
    } else {
      result.verification.note = "not executed (--no-verify)";
    }
    return result;
  }

 private:
  static int64_t largest_excess(const RowsCompileReport& r) {
    int64_t excess = INT64_MIN;
    for (size_t d = 0; d < r.sram_bytes.size(); ++d) {
      excess = std::max(excess, r.sram_bytes[d] - r.limits.sram_bytes[d]);
    }
    return excess;
  }

  CompileOptions part_options(int device) const {
    CompileOptions options = options_.single;
    options.sram_bytes = options_.limits.sram_bytes[static_cast<size_t>(device)];
    options.execute = false;  // verify() runs the composition against the whole model's reference
    options.emit_dir.clear();
    return options;
  }

  Result<CompileReport> compile_tail(int cut) {
    const ir::Graph tail = devices::extract_tail(graph_, cut, "_tail");
    return compile_model(tail, part_options(0));
  }

  // A binary search over the cuts for the first whose tail fits device 0
  // (a later cut leaves a smaller tail); the last cut when none does.
  Result<size_t> find_first_fitting_tail(const std::vector<int>& cuts) {
    size_t lo = 0, hi = cuts.size() - 1;
    TINYFIT_ASSIGN_OR_RETURN(CompileReport last, compile_tail(cuts[hi]));
    record_tail(cuts[hi], last);
    if (!last.fits()) return hi;
    tail_fits_ = true;
    while (lo < hi && static_cast<int>(report_.cuts.size()) < options_.max_cuts) {
      const size_t mid = lo + (hi - lo) / 2;
      TINYFIT_ASSIGN_OR_RETURN(CompileReport tail, compile_tail(cuts[mid]));
      record_tail(cuts[mid], tail);
      if (tail.fits()) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return hi;
  }

  void record_tail(int cut, const CompileReport& tail) {
    CutTried tried;
    tried.head_nodes = cut;
    tried.tail_arena_bytes = tail.result().arena_bytes;
    tried.fits = tail.fits();
    report_.cuts.push_back(tried);
  }

  Result<RowsCompileReport> compile_cut(int cut) {
    const int n = options_.limits.count_devices();
    RowsCompileReport r;
    r.model = graph_.source_path;
    r.limits = options_.limits;
    r.head_nodes = cut;
    r.boundary = devices::find_head_boundary(graph_, cut);
    r.tail_graph = devices::extract_tail(graph_, cut, "_tail");
    TINYFIT_ASSIGN_OR_RETURN(r.tail, compile_model(r.tail_graph, part_options(0)));
    for (int c = 0; c < cut; ++c) r.head_macs += ir::op_decl(graph_.nodes[static_cast<size_t>(c)].op).count_macs(graph_, graph_.nodes[static_cast<size_t>(c)]);
    TINYFIT_ASSIGN_OR_RETURN(std::vector<std::vector<ir::Range>> shares, devices::balance_row_shares(graph_, cut, n));
    for (int d = 0; d < n; ++d) {
      BandPart part;
      part.shares = std::move(shares[static_cast<size_t>(d)]);
      TINYFIT_ASSIGN_OR_RETURN(part.band,
                               devices::crop_rows(graph_, cut, part.shares, "_band" + std::to_string(d)));
      TINYFIT_ASSIGN_OR_RETURN(part.report, compile_model(part.band.graph, part_options(d)));
      r.band_macs += ir::count_graph_macs(part.band.graph);
      r.bands.push_back(std::move(part));
    }
    for (int d = 0; d < n; ++d) {
      const BandPart& part = r.bands[static_cast<size_t>(d)];
      int64_t sram = part.report.result().arena_bytes;
      int64_t flash = part.report.flash_bytes;
      if (d == 0) {
        sram = std::max(sram, r.tail.result().arena_bytes);
        flash += r.tail.flash_bytes;
      }
      int64_t input = 0;
      for (size_t i = 0; i < part.band.model_inputs.size(); ++i) {
        input += part.band.input_rows[i].size() * row_bytes(graph_.tensor(part.band.model_inputs[i]));
      }
      r.sram_bytes.push_back(sram);
      r.flash_bytes.push_back(flash);
      r.input_bytes.push_back(input);
      if (d > 0) {
        for (size_t b = 0; b < r.boundary.size(); ++b) {
          r.link_bytes += part.shares[b].size() * row_bytes(graph_.tensor(r.boundary[b]));
        }
      }
    }
    CutTried tried;
    tried.head_nodes = cut;
    tried.tail_arena_bytes = r.tail.result().arena_bytes;
    for (const BandPart& part : r.bands) {
      tried.largest_band_arena_bytes = std::max(tried.largest_band_arena_bytes, part.report.result().arena_bytes);
    }
    tried.fits = r.fits();
    report_.cuts.push_back(tried);
    return r;
  }

  Status predict(RowsCompileReport& r) const {
    const double per_second = options_.device_mhz * 1e6;
    double slowest_band = 0.0;
    bool predicted = true;
    const std::optional<double> tail = r.tail.result().predicted_instructions;
    for (size_t d = 0; d < r.bands.size(); ++d) {
      const std::optional<double> band = r.bands[d].report.result().predicted_instructions;
      predicted = predicted && band.has_value();
      slowest_band = std::max(slowest_band, band.value_or(0.0));
      if (d > 0) {
        r.device_instructions.push_back(band);
      } else {
        r.device_instructions.push_back(band && tail ? std::optional<double>(*band + *tail) : std::nullopt);
      }
    }
    if (predicted && tail && per_second > 0) {
      const double link = options_.limits.link_bytes_per_second > 0
                              ? static_cast<double>(r.link_bytes) / static_cast<double>(options_.limits.link_bytes_per_second)
                              : 0.0;
      r.seconds = (slowest_band + tail.value_or(0.0)) / per_second + link;
    }
    // One device with SRAM enough for every candidate: the fastest plan.
    CompileOptions one = options_.single;
    one.sram_bytes = INT64_MAX;
    one.execute = false;
    one.emit_dir.clear();
    TINYFIT_ASSIGN_OR_RETURN(const CompileReport alone, compile_model(graph_, one));
    if (alone.result().predicted_instructions && per_second > 0) {
      r.one_device_seconds = *alone.result().predicted_instructions / per_second;
    }
    return {};
  }

  // Runs every device's band in its own poisoned arena of exactly its size,
  // gathers each boundary tensor's shares on device 0, runs the tail there,
  // and compares with the reference interpreter on the whole model.
  Result<Verification> verify(const RowsCompileReport& r) const {
    TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> inputs,
                             exec::make_golden_inputs(graph_, options_.single.seed));
    TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> expected, exec::run_reference(graph_, inputs));
    std::vector<exec::TensorData> boundary;
    for (ir::TensorId t : r.boundary) {
      boundary.push_back(exec::TensorData::zeros(graph_.tensor(t).dtype, graph_.tensor(t).shape));
    }
    const std::vector<std::vector<exec::TensorData>> band_inputs = crop_band_inputs(graph_, r, inputs);
    for (size_t d = 0; d < r.bands.size(); ++d) {
      const BandPart& part = r.bands[d];
      const exec::ExecuteOptions checking{true};
      TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> outputs,
                               exec::execute_plan(part.band.graph, part.report.result().plan, band_inputs[d], checking));
      for (size_t b = 0; b < r.boundary.size(); ++b) {
        const ir::Range share = part.shares[b];
        const ir::Range band = part.band.output_rows[b];
        const exec::TensorData rows = crop_tensor_rows(outputs[b], {share.begin - band.begin, share.end - band.begin});
        const int64_t per_row = static_cast<int64_t>(rows.bytes.size()) / std::max<int64_t>(1, share.size());
        std::memcpy(boundary[b].bytes.data() + share.begin * per_row, rows.bytes.data(), rows.bytes.size());
      }
    }
    const exec::ExecuteOptions checking{true};
    TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> actual,
                             exec::execute_plan(r.tail_graph, r.tail.result().plan, boundary, checking));
    Verification v = compare_with_reference(graph_, actual, expected, /*exact=*/true);
    v.note = "every device's plans in poisoned arenas of exactly their sizes, every read checked against its "
             "last writer; the boundary rows gathered on device 0; outputs equal the reference";
    return v;
  }

  const ir::Graph& graph_;
  const RowsCompileOptions& options_;
  RowsCompileReport report_;  // the cuts tried
  bool tail_fits_ = false;
};

}  // namespace

std::vector<int> RowsCompileReport::count_over_limit() const {
  std::vector<int> over;
  for (size_t d = 0; d < sram_bytes.size(); ++d) {
    const bool sram = sram_bytes[d] > limits.sram_bytes[d];
    const bool flash = !limits.flash_bytes.empty() && limits.flash_bytes[d] > 0 && flash_bytes[d] > limits.flash_bytes[d];
    if (sram || flash) over.push_back(static_cast<int>(d));
  }
  return over;
}

Result<RowsCompileReport> compile_device_rows(const ir::Graph& graph, const RowsCompileOptions& options) {
  if (options.limits.count_devices() < 2) {
    return fail("--partition rows needs at least 2 devices", ExitCode::kBadCommandLine);
  }
  if (graph.nodes.size() < 2) {
    return fail(graph.source_path + ": --partition rows needs a model of at least two operators (a head by rows "
                "and a tail)",
                ExitCode::kBadCommandLine);
  }
  return RowsCompiler(graph, options).compile();
}

std::vector<std::vector<exec::TensorData>> crop_band_inputs(const ir::Graph& graph, const RowsCompileReport& report,
                                                            const std::vector<exec::TensorData>& inputs) {
  std::vector<std::vector<exec::TensorData>> out;
  for (const BandPart& part : report.bands) {
    std::vector<exec::TensorData>& band_inputs = out.emplace_back();
    for (size_t i = 0; i < part.band.model_inputs.size(); ++i) {
      const size_t model_input = static_cast<size_t>(
          std::find(graph.inputs.begin(), graph.inputs.end(), part.band.model_inputs[i]) - graph.inputs.begin());
      band_inputs.push_back(crop_tensor_rows(inputs.at(model_input), part.band.input_rows[i]));
    }
  }
  return out;
}

std::string describe_rows_shortfall(const RowsCompileReport& report) {
  std::string text;
  for (int d : report.count_over_limit()) {
    const int64_t sram = report.limits.sram_bytes[static_cast<size_t>(d)];
    const int64_t arena = report.sram_bytes[static_cast<size_t>(d)];
    if (!text.empty()) text += "; ";
    text += "device " + std::to_string(d) + ": ";
    if (arena > sram) {
      text += "arena " + format_thousands(arena) + " bytes > SRAM " + format_thousands(sram) + " (short by " +
              format_thousands(arena - sram) + ")";
    } else {
      text += "flash " + format_thousands(report.flash_bytes[static_cast<size_t>(d)]) + " bytes > " +
              format_thousands(report.limits.flash_bytes[static_cast<size_t>(d)]);
    }
  }
  return "does not fit the devices with the rows partition (cut after " + std::to_string(report.head_nodes) +
         " operators): " + text;
}

}  // namespace tinyfit::driver
