#include "compile_device_rows_output.h"

#include <sstream>

#include "support/byte_size.h"
#include "support/display_text.h"
#include "text_table.h"

namespace tinyfit::tools {
namespace {

std::string format_ms(double seconds) {
  std::ostringstream text;
  text.precision(5);
  text << seconds * 1e3 << " ms";
  return text.str();
}

std::string boundary_names(const ir::Graph& graph, const driver::RowsCompileReport& r) {
  std::string names;
  for (ir::TensorId t : r.boundary) names += (names.empty() ? "" : ", ") + graph.tensor(t).name;
  return names;
}

std::string plan_name(const driver::CompileReport& report) { return report.result().name; }

// Per stage after the first: its cut (in the graph of the stage before, that
// stage's tail), its devices' band arenas and MACs; then the tail.
void print_later_stages(std::ostream& out, const driver::RowsCompileReport& r) {
  int number = 2;
  for (const driver::RowsCompileReport* before = &r; before->tail_rows; before = before->tail_rows.get(), ++number) {
    const driver::RowsCompileReport& s = *before->tail_rows;
    out << "stage " << number << ": device 0 gathers the boundary and scatters every device its rows; the next "
        << s.head_nodes << " operators by bands (cut after '"
        << escape_for_display(before->tail_graph.nodes[static_cast<size_t>(s.head_nodes - 1)].name)
        << "'); band arenas";
    for (const driver::BandPart& part : s.bands) out << " " << format_thousands(part.report.result().arena_bytes);
    out << "; band MACs " << format_thousands(s.band_macs) << " (the operators' " << format_thousands(s.head_macs)
        << ")\n";
  }
  const driver::RowsCompileReport& last = r.last_stage();
  out << "tail on device 0: " << last.tail_graph.nodes.size() << " operators, arena "
      << format_thousands(last.tail.result().arena_bytes) << " (" << plan_name(last.tail) << ")\n";
}

// The later stages in JSON: per stage, its cut, its devices' band arenas and plans.
nlohmann::json make_later_stages_json(const driver::RowsCompileReport& r) {
  nlohmann::json stages = nlohmann::json::array();
  for (const driver::RowsCompileReport* s = r.tail_rows.get(); s != nullptr; s = s->tail_rows.get()) {
    nlohmann::json sj;
    sj["head_nodes"] = s->head_nodes;
    sj["head_macs"] = s->head_macs;
    sj["band_macs"] = s->band_macs;
    nlohmann::json bands = nlohmann::json::array();
    for (const driver::BandPart& part : s->bands) {
      bands.push_back({{"arena_bytes", part.report.result().arena_bytes}, {"plan", plan_name(part.report)}});
    }
    sj["bands"] = bands;
    stages.push_back(sj);
  }
  return stages;
}

nlohmann::json make_peak_json(const driver::RowsCompileReport& r) {
  const driver::RowsPeak peak = driver::find_rows_peak(r);
  nlohmann::json j;
  j["device"] = peak.device;
  j["stage"] = peak.stage;
  j["part"] = !peak.report ? "gathered boundary" : (peak.tail ? "tail" : "band");
  j["bytes"] = peak.bytes;
  if (peak.report) {
    const driver::Bottleneck& b = peak.report->bottleneck;
    j["step"] = b.step;
    j["node"] = b.node;
    j["op"] = b.op;
    nlohmann::json live = nlohmann::json::array();
    for (const driver::LiveTensor& t : b.tensors) live.push_back({{"name", t.name}, {"bytes", t.bytes}});
    j["live_tensors"] = live;
  }
  return j;
}

}  // namespace

void print_device_rows_text(std::ostream& out, const ir::Graph& graph, const driver::RowsCompileReport& r) {
  const int n = static_cast<int>(r.bands.size());
  const ir::Node& last = graph.nodes[static_cast<size_t>(r.head_nodes - 1)];
  out << "model: " << escape_for_display(r.model) << "\n"
      << "devices: " << n << " (partition: rows: operators 0.." << r.head_nodes - 1 << " by bands of rows on every "
      << "device, the other " << graph.nodes.size() - static_cast<size_t>(r.head_nodes)
      << " after it: " << (r.tail_rows ? "by bands again in " + std::to_string(r.count_stages() - 1) +
                                " more stage(s), the rest on device 0" : std::string("on device 0"))
      << "; every part compiled with the single-device techniques)\n"
      << "cut: after '" << escape_for_display(last.name) << "'; boundary: " << escape_for_display(boundary_names(graph, r))
      << "\n"
      << "MACs of the bands: " << format_thousands(r.band_macs) << " (the head's " << format_thousands(r.head_macs)
      << "; the difference: halo rows computed on two devices, less rows no consumer reads)\n";
  using Align = TextTable::Align;
  const driver::RowsCompileReport& last_stage = r.last_stage();
  TextTable table({"device", "sram_limit", "sram_bytes", "band_arena", "band_plan", "tail_arena", "tail_plan",
                   "flash_bytes", "input_bytes"},
                  {Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft, Align::kRight,
                   Align::kLeft, Align::kRight, Align::kRight});
  for (int d = 0; d < n; ++d) {
    const driver::BandPart& part = r.bands[static_cast<size_t>(d)];
    table.add_row({std::to_string(d), format_thousands(r.limits.sram_bytes[static_cast<size_t>(d)]),
                   format_thousands(r.sram_bytes[static_cast<size_t>(d)]),
                   format_thousands(part.report.result().arena_bytes), plan_name(part.report),
                   d == 0 ? format_thousands(last_stage.tail.result().arena_bytes) : "-", d == 0 ? plan_name(last_stage.tail) : "-",
                   format_thousands(r.flash_bytes[static_cast<size_t>(d)]),
                   format_thousands(r.input_bytes[static_cast<size_t>(d)])});
  }
  out << "per device (bytes; sram_bytes = its largest plan's arena, every stage's; band_arena: the first stage's; "
         "input_bytes: its rows of the model input, halo included):\n";
  table.print(out);
  print_later_stages(out, r);
  out << "peak: " << escape_for_display(driver::describe_rows_peak(r)) << "\n";
  out << "bytes exchanged: " << format_thousands(r.link_bytes) << " over the links (gather of the boundary rows on "
      << "device 0" << (r.tail_rows ? ", and scatter of the next stage's rows from it" : "") << ")\n";
  if (r.seconds) {
    out << "predicted latency: " << format_ms(*r.seconds) << " (per stage the slowest band, then the link at "
        << format_thousands(r.limits.link_bytes_per_second) << " bytes/s; then the tail)";
    if (r.one_device_seconds) {
      out << "; one device with the same techniques and unlimited SRAM (its fastest plan): " << format_ms(*r.one_device_seconds) << ", "
          << (1.0 - *r.seconds / *r.one_device_seconds) * 100 << "% lower";
    }
    out << "\n";
  }
  out << "cuts compiled:";
  for (const driver::CutTried& c : r.cuts) {
    out << " " << c.head_nodes << " (tail " << format_thousands(c.tail_arena_bytes);
    if (c.largest_band_arena_bytes >= 0) out << ", bands " << format_thousands(c.largest_band_arena_bytes);
    out << (c.fits ? ", fits)" : ")");
  }
  out << "\n"
      << "fits: " << (r.fits() ? "yes" : "no") << "\n"
      << "verified: " << (r.verification.verified ? "yes" : "no") << " (" << r.verification.note << ")\n";
}

nlohmann::json make_device_rows_json(const ir::Graph& graph, const driver::RowsCompileReport& r) {
  nlohmann::json j;
  j["model"] = r.model;
  j["partition"] = "rows";
  j["head_nodes"] = r.head_nodes;
  j["cut_after"] = graph.nodes[static_cast<size_t>(r.head_nodes - 1)].name;
  nlohmann::json boundary = nlohmann::json::array();
  for (ir::TensorId t : r.boundary) boundary.push_back(graph.tensor(t).name);
  j["boundary"] = boundary;
  j["head_macs"] = r.head_macs;
  j["later_stages"] = make_later_stages_json(r);
  j["band_macs"] = r.band_macs;
  j["exchanged_bytes"] = r.link_bytes;
  j["link_bytes_per_second"] = r.limits.link_bytes_per_second;
  j["fits"] = r.fits();
  j["verified"] = r.verification.verified;
  j["seconds"] = r.seconds ? nlohmann::json(*r.seconds) : nlohmann::json(nullptr);
  j["one_device_seconds"] = r.one_device_seconds ? nlohmann::json(*r.one_device_seconds) : nlohmann::json(nullptr);
  nlohmann::json list = nlohmann::json::array();
  for (size_t d = 0; d < r.bands.size(); ++d) {
    const driver::BandPart& part = r.bands[d];
    nlohmann::json dj;
    dj["device"] = d;
    dj["sram_limit_bytes"] = r.limits.sram_bytes[d];
    dj["sram_bytes"] = r.sram_bytes[d];
    dj["band_arena_bytes"] = part.report.result().arena_bytes;
    dj["band_plan"] = plan_name(part.report);
    dj["band_techniques"] = part.report.result().techniques;
    if (d == 0) {
      dj["tail_arena_bytes"] = r.last_stage().tail.result().arena_bytes;
      dj["tail_plan"] = plan_name(r.last_stage().tail);
    }
    dj["flash_bytes"] = r.flash_bytes[d];
    dj["input_bytes"] = r.input_bytes[d];
    dj["instructions"] = r.device_instructions[d] ? nlohmann::json(*r.device_instructions[d]) : nlohmann::json(nullptr);
    list.push_back(dj);
  }
  j["devices"] = list;
  nlohmann::json cuts = nlohmann::json::array();
  for (const driver::CutTried& c : r.cuts) {
    cuts.push_back({{"head_nodes", c.head_nodes},
                    {"tail_arena_bytes", c.tail_arena_bytes},
                    {"largest_band_arena_bytes", c.largest_band_arena_bytes},
                    {"fits", c.fits}});
  }
  j["cuts"] = cuts;
  j["peak"] = make_peak_json(r);
  return j;
}

}  // namespace tinyfit::tools
