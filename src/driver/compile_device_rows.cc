#include "driver/compile_device_rows.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <optional>
#include <sstream>

#include "devices/balance_bands.h"
#include "devices/choose_band_stage.h"
#include "devices/crop_rows.h"
#include "devices/recompute_boundary.h"
#include "exec/golden_inputs.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "ir/op_decl.h"
#include "support/byte_size.h"

namespace tinyfit::driver {
namespace {

using devices::kRowAxis;
using devices::row_bytes;

exec::TensorData crop_tensor_rows(const exec::TensorData& whole, ir::Range rows) {
  ir::Shape shape = whole.shape;
  shape[kRowAxis] = rows.size();
  exec::TensorData part = exec::TensorData::zeros(whole.dtype, shape);
  const int64_t per_row = static_cast<int64_t>(whole.bytes.size()) / whole.shape[kRowAxis];
  std::memcpy(part.bytes.data(), whole.bytes.data() + rows.begin * per_row, part.bytes.size());
  return part;
}

// The boundary rows devices 1.. send device 0 at the end of the stage.
int64_t count_gathered_bytes(const RowsCompileReport& r) {
  int64_t bytes = 0;
  for (size_t d = 1; d < r.bands.size(); ++d) {
    const BandPart& part = r.bands[d];
    for (size_t b = 0; b < part.shares.size(); ++b) {
      bytes += part.shares[b].size() * row_bytes(part.band.graph.tensor(part.band.graph.outputs[b]));
    }
  }
  return bytes;
}

// The rows device 0 scatters to devices 1.. for the stage after r (0 without one).
int64_t count_scattered_bytes(const RowsCompileReport& r) {
  int64_t bytes = 0;
  for (size_t d = 1; r.tail_rows && d < r.tail_rows->input_bytes.size(); ++d) bytes += r.tail_rows->input_bytes[d];
  return bytes;
}

class RowsCompiler {
 public:
  RowsCompiler(const ir::Graph& graph, const RowsCompileOptions& options) : graph_(graph), options_(options) {}

  Result<RowsCompileReport> compile() {
    const int n = options_.limits.count_devices();
    report_.model = graph_.source_path;
    report_.limits = options_.limits;
    TINYFIT_ASSIGN_OR_RETURN(const std::optional<double> one_device_seconds, predict_one_device());
    std::vector<int> cuts;
    for (int c = 1; c < static_cast<int>(graph_.nodes.size()); ++c) {
      std::optional<ir::Graph> staged_copy;
      if (devices::check_head(stage_graph(graph_, c, staged_copy), c, n)) cuts.push_back(c);
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
      if (best && out_of_time()) break;
      TINYFIT_ASSIGN_OR_RETURN(RowsCompileReport candidate, compile_cut(cuts[i]));
      const bool fits = candidate.fits();
      if (!best || fits || largest_excess(candidate) < largest_excess(*best)) best = std::move(candidate);
      if (fits || !tail_fits_) break;
    }
    RowsCompileReport result = std::move(*best);
    if (out_of_time()) {
      progress("--time-limit reached: no further stage of bands searched");
    } else if (result.fits()) {
      TINYFIT_RETURN_IF_ERROR(split_tail(result));
    } else if (one_device_seconds) {
      // No tail after a cut of the first stage fits device 0 whole (a
      // squeeze-excite block's mean ends every stage before the tail gets
      // small enough): the first operator from which the rest does, reached
      // by further stages.
      std::optional<int> first_whole;
      if (tail_fits_) {
        first_whole = cuts[first];
      } else {
        std::vector<int> later;
        for (int p = cuts.back() + 1; p < static_cast<int>(graph_.nodes.size()); ++p) later.push_back(p);
        if (!later.empty()) {
          TINYFIT_ASSIGN_OR_RETURN(const size_t fitting, find_first_fitting_tail(later));
          if (tail_fits_) first_whole = later[fitting];
        }
      }
      if (first_whole) TINYFIT_RETURN_IF_ERROR(fit_by_stages(result, *first_whole, *one_device_seconds));
    }
    result.cuts = report_.cuts;
    predict(result);
    result.one_device_seconds = one_device_seconds;
    if (options_.execute) {
      TINYFIT_ASSIGN_OR_RETURN(result.verification, verify(result));
    } else {
      result.verification.note = "not executed (--no-verify)";
    }
    return result;
  }

 private:
  static bool bands_fit(const RowsCompileReport& r) {
    for (size_t d = 0; d < r.bands.size(); ++d) {
      if (r.bands[d].report.result().arena_bytes > r.limits.sram_bytes[d]) return false;
    }
    return true;
  }

  static int64_t largest_excess(const RowsCompileReport& r) {
    int64_t excess = INT64_MIN;
    for (size_t d = 0; d < r.sram_bytes.size(); ++d) {
      excess = std::max(excess, r.sram_bytes[d] - r.limits.sram_bytes[d]);
    }
    return excess;
  }

  bool out_of_time() const { return options_.single.deadline.expired(); }

  void progress(const std::string& line) const {
    if (options_.progress) options_.progress(line);
  }

  // compile_model on one part (`what`: which), with a progress line.
  Result<CompileReport> compile_part(const ir::Graph& part, const CompileOptions& options,
                                     const std::string& what) const {
    const auto start = std::chrono::steady_clock::now();
    TINYFIT_ASSIGN_OR_RETURN(CompileReport report, compile_model(part, options));
    if (options_.progress) {
      std::ostringstream line;
      line.setf(std::ios::fixed);
      line.precision(1);
      line << what << " (" << part.nodes.size() << " operators): arena "
           << format_thousands(report.result().arena_bytes) << " bytes" << (report.fits() ? "" : ", over its SRAM") << " (peak at '" << report.bottleneck.node << "'), "
           << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s";
      options_.progress(line.str());
    }
    return report;
  }

  // `deadline`: this part's share of --time-limit (Deadline::share), so that
  // no part's search starves the parts compiled after it.
  CompileOptions part_options(int device, const Deadline& deadline) const {
    CompileOptions options = options_.single;
    options.deadline = deadline;
    options.sram_bytes = options_.limits.sram_bytes[static_cast<size_t>(device)];
    options.execute = false;  // verify() runs the composition against the whole model's reference
    options.emit_dir.clear();
    return options;
  }

  // graph cut after `cut` operators, the tensors crossing the cut made small
  // enough for device 0 to gather (devices/recompute_boundary.h): `graph`
  // itself when they already are (most cuts: no copy of the graph and its
  // weights, 1.85 MB on MCUNetV2-SE-Large), else the recomputed graph, held
  // in `copy`.
  const ir::Graph& stage_graph(const ir::Graph& graph, int cut, std::optional<ir::Graph>& copy) const {
    const int64_t limit = options_.limits.sram_bytes[0];
    if (devices::boundary_fits(graph, cut, limit)) return graph;
    copy = devices::recompute_boundary(graph, cut, limit);
    return *copy;
  }

  // A tail compiled to find the cut: half the time left before the 60% kept
  // for the cut's parts (the bands, which set the devices' SRAM).
  Deadline tail_search_deadline() const { return options_.single.deadline.keeping(0.6).share(2); }

  // The tail after `cut` compiled on device 0; nullopt without compiling it
  // when its inputs alone, the boundary gathered whole before it runs,
  // exceed device 0's SRAM (no plan of it can fit).
  Result<std::optional<CompileReport>> compile_tail(int cut) {
    std::optional<ir::Graph> staged_copy;
    const ir::Graph tail = devices::extract_tail(stage_graph(graph_, cut, staged_copy), cut, "_tail");
    int64_t gathered = 0;
    for (ir::TensorId t : tail.inputs) gathered += tail.tensor(t).size_bytes();
    if (gathered > options_.limits.sram_bytes[0]) return std::optional<CompileReport>();
    TINYFIT_ASSIGN_OR_RETURN(CompileReport report, compile_part(tail, part_options(0, tail_search_deadline()),
                                                                "tail after " + std::to_string(cut) + " operators"));
    return std::optional<CompileReport>(std::move(report));
  }

  // A binary search over the cuts for the first whose tail fits device 0
  // (a later cut leaves a smaller tail), at most max_cuts compiles, none
  // after --time-limit; the last cut when none does.
  Result<size_t> find_first_fitting_tail(const std::vector<int>& cuts) {
    size_t lo = 0, hi = cuts.size() - 1;
    TINYFIT_ASSIGN_OR_RETURN(const std::optional<CompileReport> last, compile_tail(cuts[hi]));
    if (last) record_tail(cuts[hi], *last);
    if (!last || !last->fits()) return hi;
    tail_fits_ = true;
    for (int compiled = 1; lo < hi && compiled < options_.max_cuts && !out_of_time();) {
      const size_t mid = lo + (hi - lo) / 2;
      TINYFIT_ASSIGN_OR_RETURN(const std::optional<CompileReport> tail, compile_tail(cuts[mid]));
      if (tail) {
        record_tail(cuts[mid], *tail);
        ++compiled;
      }
      if (tail && tail->fits()) {
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
    std::optional<ir::Graph> staged_copy;
    const ir::Graph& staged = stage_graph(graph_, cut, staged_copy);
    r.boundary = devices::find_head_boundary(staged, cut);
    r.tail_graph = devices::extract_tail(staged, cut, "_tail");
    const std::string cut_name = "cut after " + std::to_string(cut) + " operators";
    TINYFIT_ASSIGN_OR_RETURN(r.tail, compile_part(r.tail_graph, part_options(0, options_.single.deadline.share(n + 1)),
                                                  "tail, " + cut_name));
    for (int c = 0; c < cut; ++c) r.head_macs += ir::op_decl(graph_.nodes[static_cast<size_t>(c)].op).count_macs(graph_, graph_.nodes[static_cast<size_t>(c)]);
    TINYFIT_ASSIGN_OR_RETURN(std::vector<std::vector<ir::Range>> shares, devices::balance_row_shares(staged, cut, n));
    for (int d = 0; d < n; ++d) {
      BandPart part;
      part.shares = std::move(shares[static_cast<size_t>(d)]);
      TINYFIT_ASSIGN_OR_RETURN(part.band,
                               devices::crop_rows(staged, cut, part.shares, "_band" + std::to_string(d)));
      const CompileOptions band_options = part_options(d, options_.single.deadline.share(n - d));
      TINYFIT_ASSIGN_OR_RETURN(part.report, compile_part(part.band.graph, band_options,
                                                         "device " + std::to_string(d) + "'s band, " + cut_name));
      r.band_macs += ir::count_graph_macs(part.band.graph);
      r.bands.push_back(std::move(part));
    }
    account(r);
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

  // Per device, over r and the stages after it: SRAM (its largest plan's
  // arena; device 0 also the gathered boundary before a further stage),
  // flash (the constants of its graphs), its rows of the model inputs, and
  // the bytes over the links.
  void account(RowsCompileReport& r) const {
    r.sram_bytes.clear();
    r.flash_bytes.clear();
    r.input_bytes.clear();
    r.gather_bytes = 0;
    if (r.tail_rows) {
      for (ir::TensorId t : r.tail_graph.inputs) r.gather_bytes += r.tail_graph.tensor(t).size_bytes();
    }
    for (size_t d = 0; d < r.bands.size(); ++d) {
      const BandPart& part = r.bands[d];
      int64_t sram = part.report.result().arena_bytes;
      int64_t flash = part.report.flash_bytes;
      if (r.tail_rows) {
        sram = std::max(sram, r.tail_rows->sram_bytes[d]);
        flash += r.tail_rows->flash_bytes[d];
        if (d == 0) sram = std::max(sram, r.gather_bytes);
      } else if (d == 0) {
        sram = std::max(sram, r.tail.result().arena_bytes);
        flash += r.tail.flash_bytes;
      }
      int64_t input = 0;
      for (size_t i = 0; i < part.band.model_inputs.size(); ++i) {
        input += part.band.input_rows[i].size() * row_bytes(part.band.graph.tensor(part.band.graph.inputs[i]));
      }
      r.sram_bytes.push_back(sram);
      r.flash_bytes.push_back(flash);
      r.input_bytes.push_back(input);
    }
    r.link_bytes = count_gathered_bytes(r) + count_scattered_bytes(r) + (r.tail_rows ? r.tail_rows->link_bytes : 0);
  }

  double link_seconds(int64_t bytes) const {
    const int64_t rate = options_.limits.link_bytes_per_second;
    return rate > 0 ? static_cast<double>(bytes) / static_cast<double>(rate) : 0.0;
  }

  // The slowest band, the gather, then the scatter and the stages after r or
  // the tail; per device, its instructions over the stages (adds to `device`).
  std::optional<double> predict_stage(const RowsCompileReport& r, std::vector<std::optional<double>>& device) const {
    const double per_second = options_.device_mhz * 1e6;
    double slowest_band = 0.0;
    bool predicted = per_second > 0;
    const auto add = [&](size_t d, std::optional<double> instructions) {
      predicted = predicted && instructions.has_value();
      if (device[d] && instructions) {
        *device[d] += *instructions;
      } else {
        device[d] = std::nullopt;
      }
    };
    for (size_t d = 0; d < r.bands.size(); ++d) {
      const std::optional<double> band = r.bands[d].report.result().predicted_instructions;
      slowest_band = std::max(slowest_band, band.value_or(0.0));
      add(d, band);
    }
    std::optional<double> after;
    if (r.tail_rows) {
      const std::optional<double> next = predict_stage(*r.tail_rows, device);
      if (next) after = link_seconds(count_scattered_bytes(r)) + *next;
    } else {
      const std::optional<double> tail = r.tail.result().predicted_instructions;
      add(0, tail);
      if (tail && per_second > 0) after = *tail / per_second;
    }
    if (!predicted || !after) return std::nullopt;
    return slowest_band / per_second + link_seconds(count_gathered_bytes(r)) + *after;
  }

  // graph_'s operators [0, cut) by bands (devices/choose_band_stage.h's
  // estimate): one band graph per device, its MACs; the bytes scattered to
  // devices 1.. (none when their rows of the model input come from the
  // sensor: the first stage) and gathered from them. begin and end count
  // from `offset`; the graph's first `recomputed` operators are copies of
  // operators before it (devices/recompute_boundary.h).
  Result<devices::BandStageEstimate> estimate_stage(int offset, int cut, int recomputed, bool scattered) const {
    const int n = options_.limits.count_devices();
    devices::BandStageEstimate e;
    e.begin = offset;
    e.end = offset + cut - recomputed;
    e.head_nodes = cut;
    std::optional<ir::Graph> staged_copy;
    const ir::Graph& staged = stage_graph(graph_, cut, staged_copy);
    TINYFIT_ASSIGN_OR_RETURN(const std::vector<std::vector<ir::Range>> shares, devices::balance_row_shares(staged, cut, n));
    for (int d = 0; d < n; ++d) {
      const std::vector<ir::Range>& share = shares[static_cast<size_t>(d)];
      TINYFIT_ASSIGN_OR_RETURN(const devices::BandGraph band, devices::crop_rows(staged, cut, share, "_estimate"));
      e.band_macs.push_back(ir::count_graph_macs(band.graph));
      if (d == 0) continue;
      for (size_t i = 0; scattered && i < band.input_rows.size(); ++i) {
        e.link_bytes += band.input_rows[i].size() * row_bytes(band.graph.tensor(band.graph.inputs[i]));
      }
      for (size_t b = 0; b < share.size(); ++b) {
        e.link_bytes += share[b].size() * row_bytes(band.graph.tensor(band.graph.outputs[b]));
      }
    }
    return e;
  }

  // Every stage the tail could run by bands: from operator 0, and from every
  // end of such a stage whose boundary, gathered whole, fits device 0's SRAM,
  // each cut crop_rows accepts. from_sensor: `tail` is the model, its first
  // stage the head (the devices' rows of the input come from the sensor).
  Result<std::vector<devices::BandStageEstimate>> estimate_stages(const ir::Graph& tail, bool from_sensor) const {
    const int n = options_.limits.count_devices();
    const int nodes = static_cast<int>(tail.nodes.size());
    std::vector<devices::BandStageEstimate> estimates;
    std::vector<bool> reached(static_cast<size_t>(nodes), false);
    reached[0] = true;
    for (int begin = 0; begin < nodes; ++begin) {
      if (!reached[static_cast<size_t>(begin)]) continue;
      std::optional<ir::Graph> staged_copy;
      const ir::Graph from =
          begin == 0 ? tail : devices::extract_tail(stage_graph(tail, begin, staged_copy), begin, "_from");
      const int recomputed = static_cast<int>(from.nodes.size()) - (nodes - begin);
      int64_t gathered = 0;
      for (ir::TensorId t : from.inputs) gathered += from.tensor(t).size_bytes();
      if (begin > 0 && gathered > options_.limits.sram_bytes[0]) continue;
      const RowsCompiler compiler(from, options_);
      for (int cut = recomputed + 1; begin + cut - recomputed < nodes; ++cut) {
        std::optional<ir::Graph> from_copy;
        if (!devices::check_head(stage_graph(from, cut, from_copy), cut, n)) continue;
        TINYFIT_ASSIGN_OR_RETURN(devices::BandStageEstimate e,
                                 compiler.estimate_stage(begin, cut, recomputed, begin > 0 || !from_sensor));
        reached[static_cast<size_t>(e.end)] = true;
        estimates.push_back(std::move(e));
      }
    }
    return estimates;
  }

  // split-tail: r's tail by bands again, stage after stage, as the estimate
  // prefers (devices/choose_band_stage.h), then compiled.
  Status split_tail(RowsCompileReport& r) const {
    const double per_second = options_.device_mhz * 1e6;
    const std::optional<double> whole = r.tail.result().predicted_instructions;
    const int64_t whole_macs = ir::count_graph_macs(r.tail_graph);
    if (!whole || whole_macs <= 0 || per_second <= 0 || r.tail_graph.nodes.size() < 2) return {};
    TINYFIT_ASSIGN_OR_RETURN(const std::vector<devices::BandStageEstimate> estimates,
                             estimate_stages(r.tail_graph, /*from_sensor=*/false));
    const devices::StageRates rates{*whole / static_cast<double>(whole_macs) / per_second,
                                    static_cast<double>(options_.limits.link_bytes_per_second)};
    // With the rest whole from operator 0 on, some sequence (none) always reaches it.
    const std::optional<std::vector<size_t>> chosen =
        devices::choose_band_stages(count_node_macs(r.tail_graph), estimates, rates, 0);
    std::vector<int> heads;  // each stage's cut in the tail before it
    for (size_t i : *chosen) {
      heads.push_back(estimates[i].head_nodes);
    }
    TINYFIT_RETURN_IF_ERROR(attach_stages(r, heads, 0));  // a stage that does not fit leaves the tail whole
    return {};
  }

  static std::vector<int64_t> count_node_macs(const ir::Graph& graph) {
    std::vector<int64_t> macs;
    for (const ir::Node& node : graph.nodes) macs.push_back(ir::op_decl(node.op).count_macs(graph, node));
    return macs;
  }

  // fit-by-stages: when no cut whose tail fits device 0 whole leaves bands
  // that fit (r, the closest), an earlier cut whose tail fits by further
  // stages of bands. The stages over the whole model, the head first, are
  // chosen by the estimate (devices/choose_band_stage.h) with the rest whole
  // on device 0 from operator first_whole on (the first cut whose tail fitted
  // whole), then compiled. A stage whose bands do not fit rules out the
  // stages from its begin as long or longer (a longer stage has larger bands
  // and halos), and the stages are chosen again, at most max_cuts times.
  // r becomes the first such plan that fits; else r stays.
  Status fit_by_stages(RowsCompileReport& r, int first_whole, double one_device_seconds) {
    const int64_t model_macs = ir::count_graph_macs(graph_);
    if (model_macs <= 0 || one_device_seconds <= 0) return {};
    TINYFIT_ASSIGN_OR_RETURN(const std::vector<devices::BandStageEstimate> estimates,
                             estimate_stages(graph_, /*from_sensor=*/true));
    const std::vector<int64_t> node_macs = count_node_macs(graph_);
    const devices::StageRates rates{one_device_seconds / static_cast<double>(model_macs),
                                    static_cast<double>(options_.limits.link_bytes_per_second)};
    std::vector<int> too_long(graph_.nodes.size(), INT_MAX);  // per begin: the shortest end whose bands did not fit
    for (int attempt = 0; attempt < options_.max_cuts && !out_of_time(); ++attempt) {
      std::vector<devices::BandStageEstimate> open;
      for (const devices::BandStageEstimate& e : estimates) {
        if (e.end < too_long[static_cast<size_t>(e.begin)]) open.push_back(e);
      }
      const std::optional<std::vector<size_t>> chosen =
          devices::choose_band_stages(node_macs, open, rates, static_cast<size_t>(first_whole));
      if (!chosen || chosen->empty()) return {};
      std::vector<int> heads;
      for (size_t i : *chosen) heads.push_back(open[i].head_nodes);
      TINYFIT_ASSIGN_OR_RETURN(RowsCompileReport candidate, compile_cut(heads[0]));
      size_t failed = 0;
      if (bands_fit(candidate)) {
        TINYFIT_ASSIGN_OR_RETURN(failed, attach_stages(candidate, heads, 1));
      }
      if (candidate.fits()) {
        r = std::move(candidate);
        return {};
      }
      const devices::BandStageEstimate& stage = open[(*chosen)[std::min(failed, heads.size() - 1)]];
      too_long[static_cast<size_t>(stage.begin)] = std::min(too_long[static_cast<size_t>(stage.begin)], stage.end);
    }
    return {};
  }

  // The stage of heads[i] operators on r's tail, compiled, with the stages
  // after it; kept when every device fits and, if r's tail fits device 0
  // whole, the compiled prediction, link included, beats it (else r keeps
  // its tail). Returns the index of the first stage that was not kept
  // because it or the stages after it did not fit (heads.size(): none).
  Result<size_t> attach_stages(RowsCompileReport& r, const std::vector<int>& heads, size_t i) const {
    if (i == heads.size()) return i;
    const int n = options_.limits.count_devices();
    const double per_second = options_.device_mhz * 1e6;
    const std::optional<double> whole = r.tail.result().predicted_instructions;
    RowsCompiler next_compiler(r.tail_graph, options_);
    TINYFIT_ASSIGN_OR_RETURN(RowsCompileReport next, next_compiler.compile_cut(heads[i]));
    if (!bands_fit(next) || !whole) return i;
    TINYFIT_ASSIGN_OR_RETURN(const size_t failed, next_compiler.attach_stages(next, heads, i + 1));
    RowsCompileReport split = r;
    split.tail_rows = std::make_shared<const RowsCompileReport>(std::move(next));
    account(split);
    if (!split.fits()) return failed < heads.size() ? failed : i;
    std::vector<std::optional<double>> unused(static_cast<size_t>(n), 0.0);
    const std::optional<double> by_rows = predict_stage(*split.tail_rows, unused);
    const bool slower = !by_rows || link_seconds(count_scattered_bytes(split)) + *by_rows >= *whole / per_second;
    if (r.tail.fits() && slower) return heads.size();
    r = std::move(split);
    return heads.size();
  }

  void predict(RowsCompileReport& r) const {
    r.device_instructions.assign(r.bands.size(), 0.0);
    r.seconds = predict_stage(r, r.device_instructions);
  }

  // One device with SRAM enough for every candidate: its fastest plan's
  // seconds. Compiled first, while the searches' deadline (--time-limit) is
  // fresh, so that the parts compiled after it cannot starve it.
  Result<std::optional<double>> predict_one_device() const {
    const double per_second = options_.device_mhz * 1e6;
    CompileOptions one = options_.single;
    one.sram_bytes = INT64_MAX;
    one.execute = false;
    one.emit_dir.clear();
    TINYFIT_ASSIGN_OR_RETURN(const CompileReport alone, compile_part(graph_, one, "one device, unlimited SRAM"));
    if (!alone.result().predicted_instructions || per_second <= 0) return std::optional<double>();
    return std::optional<double>(*alone.result().predicted_instructions / per_second);
  }

  // Runs every device's band of r (a stage of `graph`) in its own poisoned
  // arena of exactly its size, gathers each boundary tensor's shares on
  // device 0, then runs the stages after r or the tail there: the outputs.
  Result<std::vector<exec::TensorData>> run_stage(const ir::Graph& graph, const RowsCompileReport& r,
                                                  const std::vector<exec::TensorData>& inputs) const {
    const exec::ExecuteOptions checking{true};
    std::vector<exec::TensorData> boundary;
    for (ir::TensorId t : r.boundary) {
      boundary.push_back(exec::TensorData::zeros(graph.tensor(t).dtype, graph.tensor(t).shape));
    }
    const std::vector<std::vector<exec::TensorData>> band_inputs = crop_band_inputs(graph, r, inputs);
    for (size_t d = 0; d < r.bands.size(); ++d) {
      const BandPart& part = r.bands[d];
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
    if (r.tail_rows) return run_stage(r.tail_graph, *r.tail_rows, boundary);
    return exec::execute_plan(r.tail_graph, r.tail.result().plan, boundary, checking);
  }

  // Every stage run as above on the golden inputs, compared with the
  // reference interpreter on the whole model.
  Result<Verification> verify(const RowsCompileReport& r) const {
    TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> inputs,
                             exec::make_golden_inputs(graph_, options_.single.seed));
    TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> expected, exec::run_reference(graph_, inputs));
    TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> actual, run_stage(graph_, r, inputs));
    Verification v = compare_with_reference(graph_, actual, expected, /*exact=*/true);
    v.note = "every device's plans in poisoned arenas of exactly their sizes, every read checked against its "
             "last writer; the boundary rows gathered on device 0 (and scattered again before each further stage "
             "of bands); outputs equal the reference";
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

RowsPeak find_rows_peak(const RowsCompileReport& report) {
  RowsPeak peak;
  std::optional<int64_t> largest_excess;
  const auto consider = [&](size_t device, int stage, bool tail, int64_t bytes, const CompileReport* plan) {
    const int64_t excess = bytes - report.limits.sram_bytes[device];
    if (largest_excess && excess <= *largest_excess) return;
    largest_excess = excess;
    peak = {static_cast<int>(device), stage, tail, bytes, plan};
  };
  int stage = 1;
  for (const RowsCompileReport* s = &report; s != nullptr; s = s->tail_rows.get(), ++stage) {
    for (size_t d = 0; d < s->bands.size(); ++d) {
      consider(d, stage, false, s->bands[d].report.result().arena_bytes, &s->bands[d].report);
    }
    if (s->tail_rows) {
      consider(0, stage, false, s->gather_bytes, nullptr);
    } else {
      consider(0, stage, true, s->tail.result().arena_bytes, &s->tail);
    }
  }
  return peak;
}

std::string describe_rows_peak(const RowsCompileReport& report) {
  const RowsPeak peak = find_rows_peak(report);
  std::string text = "device " + std::to_string(peak.device) + ", stage " + std::to_string(peak.stage) +
                     (!peak.report ? "'s boundary gathered whole" : peak.tail ? "'s tail" : "'s band") + ", " +
                     format_thousands(peak.bytes) + " bytes";
  if (!peak.report) return text;
  const Bottleneck& b = peak.report->bottleneck;
  text += " at step " + std::to_string(b.step) + ", node '" + b.node + "' (" + b.op + "), live tensors:";
  constexpr size_t kListed = 6;  // the largest few, then a count
  for (size_t i = 0; i < b.tensors.size() && i < kListed; ++i) {
    text += (i == 0 ? " " : ", ") + b.tensors[i].name + " " + format_thousands(b.tensors[i].bytes);
  }
  if (b.tensors.size() > kListed) text += " and " + std::to_string(b.tensors.size() - kListed) + " more";
  return text;
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
         " operators): " + text + "; the peak: " + describe_rows_peak(report);
}

}  // namespace tinyfit::driver
