#include "print_memory_plans.h"

#include <cmath>
#include <cstdio>
#include <string_view>
#include <utility>

namespace tinyfit::bench {
namespace {

std::string format_thousands(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string format_fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

// Enough digits to compare algorithms, not more than one run can support.
std::string format_seconds(double seconds) {
  const double ms = seconds * 1000.0;
  if (ms < 0.01) return "<0.01 ms";
  if (ms < 10.0) return format_fixed(ms, 2) + " ms";
  if (ms < 1000.0) return format_fixed(ms, 0) + " ms";
  return format_fixed(seconds, 1) + " s";
}

// Markdown cells cannot hold a pipe or a line break.
std::string escape_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_order_cell(const OrderRun& run) {
  if (!run.topological) return "not topological";
  return format_thousands(run.peak_bytes) + (run.optimal ? " ✓" : "") + " (" + format_seconds(run.time.cpu_seconds) + ")";
}

std::string format_placement_cell(const PlacementRun& run) {
  if (!run.valid) return "invalid";
  std::string cell = format_thousands(run.arena_bytes) + (run.proven_optimal ? " ✓" : "") + " ×" +
                     format_fixed(run.fragmentation, 3) + " (" + format_seconds(run.time.cpu_seconds) + ")";
  if (run.algorithm == "best" && !run.winner.empty()) cell += " " + run.winner;
  return cell;
}

std::string format_joint_cell(const JointRun& run) {
  return format_thousands(run.peak_bytes) + (run.optimal ? " ✓" : "") + " (" + format_seconds(run.time.cpu_seconds) + ")";
}

const OrderRun* find_order(const ModelMeasurement& m, std::string_view algorithm) {
  for (const OrderRun& run : m.orders) {
    if (run.algorithm == algorithm) return &run;
  }
  return nullptr;
}

std::string format_notes(const ModelMeasurement& m) {
  std::string notes;
  auto add = [&notes](const std::string& note) { notes += (notes.empty() ? "" : "; ") + note; };
  if (!m.import_error.empty()) add(m.import_error);
  for (const OrderRun& run : m.orders) {
    if (run.algorithm == "exact" && !run.optimal) add(run.note);
  }
  if (!m.orders.empty() && !m.inplace_joint.optimal) add("exact+inplace: " + m.inplace_joint.note);
  if (!m.problems.empty()) add(std::to_string(m.problems.size()) + " problem(s), see below");
  return escape_cell(notes);
}

// The first model that measured gives the columns; a failed import has none.
const ModelMeasurement* find_column_model(const BenchRun& run) {
  for (const ModelMeasurement& m : run.models) {
    if (!m.orders.empty() && !m.placements.empty()) return &m;
  }
  return nullptr;
}

double ratio(int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 1.0; }

void print_ratio_summary(std::ostream& out, const BenchRun& run) {
  // Geometric means: the right mean for ratios (a 2x gain and a 2x loss cancel).
  // Keyed by name, in the order first seen, so a new algorithm joins the summary.
  std::vector<std::pair<std::string, double>> log_sums;
  auto add = [&log_sums](const std::string& key, double value) {
    for (auto& [name, sum] : log_sums) {
      if (name == key) {
        sum += std::log(value);
        return;
      }
    }
    log_sums.emplace_back(key, std::log(value));
  };
  int n = 0;
  for (const ModelMeasurement& m : run.models) {
    const OrderRun* given = find_order(m, "given");
    if (!given || !m.problems.empty() || m.placements.empty() || given->peak_bytes <= 0) continue;
    for (const OrderRun& r : m.orders) add("order " + r.algorithm + " / given", ratio(r.peak_bytes, given->peak_bytes));
    add("in-place on the given order / given", ratio(m.inplace_given.peak_bytes, given->peak_bytes));
    add("in-place on the best order / given", ratio(m.inplace_best.peak_bytes, given->peak_bytes));
    add("exact order searched with in-place / given", ratio(m.inplace_joint.peak_bytes, given->peak_bytes));
    for (const PlacementRun& r : m.placements) add("place " + r.algorithm + " arena / peak", r.fragmentation);
    ++n;
  }
  if (n == 0) return;
  out << "\nGeometric means over the " << n << " models measured without problems:\n\n";
  for (const auto& [name, sum] : log_sums) out << "- " << name << ": " << format_fixed(std::exp(sum / n), 4) << "\n";
}

bool is_nas_or_randwire(const std::string& model) {
  for (std::string_view family : {"nasnet", "darts", "amoebanet", "randwire"}) {
    if (model.find(family) != std::string::npos) return true;
  }
  return false;
}

// Issue 10's table: in-place on the NAS and RandWire networks, against HMCOS.
void print_nas_inplace_table(std::ostream& out, const BenchRun& run) {
  std::vector<const ModelMeasurement*> rows;
  for (const ModelMeasurement& m : run.models) {
    if (is_nas_or_randwire(m.model) && !m.orders.empty()) rows.push_back(&m);
  }
  if (rows.empty()) return;
  out << "\n## In-place on the NAS and RandWire networks, against HMCOS\n\n"
      << "Peak bytes with in-place merges. HMCOS: its order with its element-wise overwrite\n"
      << "(shared/notes/BASELINES.md; — where not measured). Before: the exact order (no in-place in its\n"
      << "cost), then merges added greedily (`in-place, best order` above). Now: the exact order searched\n"
      << "together with its merges (✓ = proven optimal for that joint model), its CPU time. Arena: its\n"
      << "plan placed by place-best, and the gap to the peak.\n\n"
      << "| model | ops | HMCOS | before | now | now / HMCOS | arena | arena − peak | placement |\n"
      << "|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const ModelMeasurement* m : rows) {
    const JointRun& j = m->inplace_joint;
    out << "| " << escape_cell(m->model) << " | " << m->operators << " | "
        << (m->hmcos_peak_bytes > 0 ? format_thousands(m->hmcos_peak_bytes) : "—") << " | "
        << format_thousands(m->inplace_best.peak_bytes) << " | " << format_joint_cell(j) << " | "
        << (m->hmcos_peak_bytes > 0 ? format_fixed(ratio(j.peak_bytes, m->hmcos_peak_bytes), 4) : "—") << " | "
        << format_thousands(j.arena_bytes) << (j.arena_proven ? " ✓" : "") << " | "
        << format_thousands(j.arena_bytes - j.peak_bytes) << " | " << escape_cell(j.placement_note) << " |\n";
  }
}

}  // namespace

void print_markdown(std::ostream& out, const BenchRun& run) {
  out << "# Memory plans: orders, in-place and placements, one run\n\n"
      << "- command: `" << run.command << "`\n"
      << "- date: " << run.date_utc << "\n"
      << "- machine: " << run.machine << "; build: " << run.build_type << "\n"
      << "- models: every .onnx/.tflite under `" << run.models_dir << "`, then the zoo (and the float32\n"
      << "  NAS and RandWire networks); time limit " << format_fixed(run.time_limit_seconds, 0) << " s per search\n\n"
      << "Bytes of activation memory (DESIGN.md accounting), then the CPU time the algorithm took in this run.\n"
      << "✓ = proven optimal (orders: the minimum peak over all topological orders; placements: the\n"
      << "minimum arena for these buffers). Orders and in-place give peak_bytes; `best / given` is the\n"
      << "lowest order peak over the given order's. In-place: merges added to the given and to the best\n"
      << "order, and the exact order searched together with its merges (✓: proven for that joint model).\n"
      << "Placements place the given order without in-place (ordinary execution) and give arena_bytes,\n"
      << "×arena/peak (fragmentation); `best` names its winner.\n\n";

  const ModelMeasurement* columns = find_column_model(run);
  std::vector<std::string> order_names, placement_names;
  if (columns) {
    for (const OrderRun& r : columns->orders) order_names.push_back(r.algorithm);
    for (const PlacementRun& r : columns->placements) placement_names.push_back(r.algorithm);
  }
  out << "| model | ops | lower bound |";
  for (const std::string& name : order_names) out << " " << name << " |";
  out << " best / given | in-place, given order | in-place, best order | exact with in-place |";
  for (const std::string& name : placement_names) out << " place " << name << " |";
  out << " notes |\n|---|---:|---:|";
  for (size_t i = 0; i < order_names.size() + 4 + placement_names.size(); ++i) out << "---:|";
  out << "---|\n";

  for (const ModelMeasurement& m : run.models) {
    out << "| " << escape_cell(m.model) << " | ";
    if (!m.import_error.empty() || m.orders.empty()) {
      out << "— | — |";
      for (size_t i = 0; i < order_names.size() + 4 + placement_names.size(); ++i) out << " — |";
      out << " " << format_notes(m) << " |\n";
      continue;
    }
    out << m.operators << " | " << format_thousands(m.lower_bound_bytes) << " |";
    for (const std::string& name : order_names) {
      const OrderRun* r = find_order(m, name);
      out << " " << (r ? format_order_cell(*r) : "—") << " |";
    }
    const OrderRun* given = find_order(m, "given");
    out << " " << (given ? format_fixed(ratio(m.best_peak_bytes, given->peak_bytes), 3) : "—") << " ("
        << m.best_order << ") | " << format_thousands(m.inplace_given.peak_bytes) << " | "
        << format_thousands(m.inplace_best.peak_bytes) << " | " << format_joint_cell(m.inplace_joint) << " |";
    for (const std::string& name : placement_names) {
      std::string cell = "—";
      for (const PlacementRun& r : m.placements) {
        if (r.algorithm == name) cell = format_placement_cell(r);
      }
      out << " " << cell << " |";
    }
    out << " " << format_notes(m) << " |\n";
  }

  print_ratio_summary(out, run);
  print_nas_inplace_table(out, run);
  out << "\n## Problems (broken guarantees: bugs to report)\n\n";
  bool any = false;
  for (const ModelMeasurement& m : run.models) {
    for (const std::string& p : m.problems) {
      out << "- " << m.model << ": " << p << "\n";
      any = true;
    }
  }
  if (!any) out << "None: every order topological, exact never worse than a heuristic, every placement verified.\n";
}

nlohmann::json make_json(const BenchRun& run) {
  nlohmann::json models = nlohmann::json::array();
  for (const ModelMeasurement& m : run.models) {
    nlohmann::json orders = nlohmann::json::array();
    for (const OrderRun& r : m.orders) {
      orders.push_back({{"algorithm", r.algorithm},
                        {"peak_bytes", r.peak_bytes},
                        {"cpu_seconds", r.time.cpu_seconds},
                        {"wall_seconds", r.time.wall_seconds},
                        {"optimal", r.optimal},
                        {"note", r.note},
                        {"states_explored", r.states_explored},
                        {"topological", r.topological}});
    }
    nlohmann::json placements = nlohmann::json::array();
    for (const PlacementRun& r : m.placements) {
      placements.push_back({{"algorithm", r.algorithm},
                            {"arena_bytes", r.arena_bytes},
                            {"cpu_seconds", r.time.cpu_seconds},
                            {"wall_seconds", r.time.wall_seconds},
                            {"fragmentation", r.fragmentation},
                            {"proven_optimal", r.proven_optimal},
                            {"winner", r.winner},
                            {"note", r.note},
                            {"valid", r.valid}});
    }
    auto inplace = [](const InplaceRun& r) {
      return nlohmann::json{{"order", r.order},
                            {"peak_bytes", r.peak_bytes},
                            {"merges", r.merges},
                            {"cpu_seconds", r.time.cpu_seconds},
                            {"wall_seconds", r.time.wall_seconds}};
    };
    nlohmann::json model = {{"model", m.model},
                            {"import_cpu_seconds", m.import_time.cpu_seconds},
                            {"problems", m.problems}};
    if (!m.import_error.empty()) {
      model["import_error"] = m.import_error;
    } else {
      model.update({{"operators", m.operators},
                    {"buffers", m.buffers},
                    {"lower_bound_bytes", m.lower_bound_bytes},
                    {"orders", orders},
                    {"best_order", m.best_order},
                    {"best_peak_bytes", m.best_peak_bytes},
                    {"inplace_given", inplace(m.inplace_given)},
                    {"inplace_best", inplace(m.inplace_best)},
                    {"inplace_joint",
                     {{"peak_bytes", m.inplace_joint.peak_bytes},
                      {"cpu_seconds", m.inplace_joint.time.cpu_seconds},
                      {"wall_seconds", m.inplace_joint.time.wall_seconds},
                      {"optimal", m.inplace_joint.optimal},
                      {"note", m.inplace_joint.note},
                      {"merges", m.inplace_joint.merges},
                      {"arena_bytes", m.inplace_joint.arena_bytes},
                      {"placement_cpu_seconds", m.inplace_joint.placement_time.cpu_seconds},
                      {"arena_proven", m.inplace_joint.arena_proven},
                      {"placement_note", m.inplace_joint.placement_note}}},
                    {"hmcos_peak_bytes", m.hmcos_peak_bytes},
                    {"placement_peak_bytes", m.placement_peak_bytes},
                    {"placements", placements}});
    }
    models.push_back(std::move(model));
  }
  return {{"command", run.command},     {"date_utc", run.date_utc},
          {"machine", run.machine},     {"build_type", run.build_type},
          {"models_dir", run.models_dir}, {"time_limit_seconds", run.time_limit_seconds},
          {"models", models}};
}

}  // namespace tinyfit::bench
