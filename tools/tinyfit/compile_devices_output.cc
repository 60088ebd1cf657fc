#include "compile_devices_output.h"

#include <map>
#include <sstream>

#include "support/byte_size.h"
#include "support/display_text.h"
#include "text_table.h"

namespace tinyfit::tools {
namespace {

Result<std::vector<int64_t>> parse_size_list(const std::string& flag, const std::string& text, int devices) {
  std::vector<int64_t> sizes;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    Result<int64_t> bytes = parse_byte_size(item);
    if (!bytes || *bytes <= 0) {
      return fail(flag + " '" + item + "': " + (bytes ? std::string("must be positive") : bytes.error().message),
                  ExitCode::kBadCommandLine);
    }
    sizes.push_back(*bytes);
  }
  if (sizes.size() == 1) sizes.assign(static_cast<size_t>(devices), sizes[0]);
  if (static_cast<int>(sizes.size()) != devices) {
    return fail(flag + ": expected one size or " + std::to_string(devices) + " (one per device), got " +
                    std::to_string(sizes.size()),
                ExitCode::kBadCommandLine);
  }
  return sizes;
}

// Seconds the link needs for every transfer, one after another (one shared
// link; devices that could talk in parallel would need less).
double link_seconds(const driver::DeviceCompileReport& r) {
  const int64_t rate = r.options_limits.link_bytes_per_second;
  return rate > 0 ? static_cast<double>(r.plan.count_link_bytes()) / static_cast<double>(rate) : 0.0;
}

std::map<devices::ExchangeKind, int64_t> bytes_by_kind(const devices::DevicePlan& plan) {
  std::map<devices::ExchangeKind, int64_t> bytes;
  for (const devices::Stage& stage : plan.stages) {
    for (const devices::Transfer& t : stage.transfers) bytes[t.kind] += t.bytes;
  }
  return bytes;
}

std::string format_seconds(double seconds) {
  std::ostringstream text;
  text.precision(4);
  text << seconds * 1e3 << " ms";
  return text.str();
}

std::string format_percent(double fraction) {
  std::ostringstream text;
  text.precision(3);
  text << fraction * 100 << "%";
  return text.str();
}

std::string stage_name(const ir::Graph& graph, const devices::Stage& stage) {
  return stage.node < 0 ? std::string("(gather outputs)") : graph.nodes[static_cast<size_t>(stage.node)].name;
}

}  // namespace

Result<devices::DeviceLimits> parse_device_limits(const DeviceCliOptions& options) {
  if (options.devices < 1) return fail("--devices: need at least 1 device", ExitCode::kBadCommandLine);
  if (options.sram_list.empty()) return fail("--devices needs --device-sram", ExitCode::kBadCommandLine);
  devices::DeviceLimits limits;
  TINYFIT_ASSIGN_OR_RETURN(limits.sram_bytes, parse_size_list("--device-sram", options.sram_list, options.devices));
  if (!options.flash_list.empty()) {
    TINYFIT_ASSIGN_OR_RETURN(limits.flash_bytes,
                             parse_size_list("--device-flash", options.flash_list, options.devices));
  }
  if (options.link_bytes_per_second < 0) {
    return fail("--link-bytes-per-second: must be positive", ExitCode::kBadCommandLine);
  }
  limits.link_bytes_per_second = options.link_bytes_per_second;
  return limits;
}

void print_devices_text(std::ostream& out, const ir::Graph& graph, const driver::DeviceCompileReport& r) {
  out << "model: " << escape_for_display(r.model) << "\n"
      << "devices: " << r.plan.count_devices() << " (partition: " << r.partition
      << (r.partition == "k1k2"         ? ", MemoriaNova eqs. 4-5 per convolution"
          : r.partition == "min-memory" ? ", every split operator by its smallest part"
                                        : ", the fastest predicted plan within the limits")
      << "; order: the model's)\n"
      << "one device, ordinary execution: peak " << format_thousands(r.single_device_peak_bytes) << " bytes\n";
  using Align = TextTable::Align;
  TextTable table({"device", "sram_limit", "arena_bytes", "peak_bytes", "peak_at", "flash_bytes", "flash_limit", "parts"},
                  {Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft, Align::kRight,
                   Align::kRight, Align::kRight});
  for (int d = 0; d < r.plan.count_devices(); ++d) {
    const auto& device = r.plan.devices[static_cast<size_t>(d)];
    const auto& memory = r.memory[static_cast<size_t>(d)];
    int parts = 0;
    for (const devices::Stage& stage : r.plan.stages) {
      for (const devices::PartCompute& c : stage.computes) parts += c.device == d ? 1 : 0;
    }
    const devices::Stage& peak_stage = r.plan.stages[static_cast<size_t>(memory.peak_step / 2)];
    const std::string flash_limit = r.options_limits.flash_bytes.empty()
                                        ? "-"
                                        : format_thousands(r.options_limits.flash_bytes[static_cast<size_t>(d)]);
    table.add_row({std::to_string(d), format_thousands(r.options_limits.sram_bytes[static_cast<size_t>(d)]),
                   format_thousands(device.arena_bytes), format_thousands(memory.peak_bytes),
                   (memory.peak_step % 2 ? "exec " : "interval ") + escape_for_display(stage_name(graph, peak_stage)),
                   format_thousands(device.flash_bytes), flash_limit, std::to_string(parts)});
  }
  out << "per device (bytes; peak_at: the stage of the peak, interval = its transfers, exec = its operator):\n";
  table.print(out);
  std::map<devices::Split, int> splits;
  for (const devices::OperatorChoice& c : r.plan.choices) ++splits[c.split];
  out << "operators:";
  for (const auto& [split, count] : splits) out << " " << devices::split_name(split) << " " << count;
  out << "\nbytes exchanged: " << format_thousands(r.plan.count_link_bytes()) << " over the links (";
  bool first = true;
  for (const auto& [kind, bytes] : bytes_by_kind(r.plan)) {
    out << (first ? "" : ", ") << devices::exchange_kind_name(kind) << " " << format_thousands(bytes);
    first = false;
  }
  out << ")\n";
  if (r.options_limits.link_bytes_per_second > 0) {
    out << "link time: " << link_seconds(r) << " s at " << format_thousands(r.options_limits.link_bytes_per_second)
        << " bytes/s (transfers one after another)\n";
  }
  if (r.latency) {
    out << "predicted latency: " << format_seconds(r.latency->seconds) << " (compute " << format_seconds(r.latency->compute_seconds)
        << ": the slowest device per stage, " << r.target << " instructions at " << r.device_mhz << " MHz; link "
        << format_seconds(r.latency->link_seconds) << ")";
    if (r.one_device_seconds) {
      out << "; one device: " << format_seconds(*r.one_device_seconds) << ", "
          << format_percent(1.0 - r.latency->seconds / *r.one_device_seconds) << " lower";
    }
    out << "\n  instructions per device:";
    for (double instructions : r.latency->device_instructions) out << " " << format_thousands(static_cast<int64_t>(instructions));
    out << "\n";
  } else {
    out << "predicted latency: none (" << r.latency_error << ")\n";
  }
  if (!r.search_candidates.empty()) {
    out << "search compared:";
    for (size_t i = 0; i < r.search_candidates.size(); ++i) {
      const devices::SearchCandidate& c = r.search_candidates[i];
      out << (i ? "; " : " ") << c.name << " " << format_seconds(c.seconds)
          << (c.fits() ? " fits" : " exceeds by " + format_thousands(c.excess_bytes))
          << (static_cast<int>(i) == r.search_chosen ? " (chosen)" : "");
    }
    out << "\n";
  }
  out << "fits: " << (r.fits() ? "yes" : "no") << "\n"
      << "verified: " << (r.verification.verified ? "yes" : "no") << " (" << r.verification.note << ")\n";
}

nlohmann::json make_devices_json(const ir::Graph& graph, const driver::DeviceCompileReport& r) {
  nlohmann::json j;
  j["model"] = r.model;
  j["partition"] = r.partition;
  j["order"] = "given";
  j["single_device_peak_bytes"] = r.single_device_peak_bytes;
  j["exchanged_bytes"] = r.plan.count_link_bytes();
  nlohmann::json kinds = nlohmann::json::object();
  for (const auto& [kind, bytes] : bytes_by_kind(r.plan)) kinds[std::string(devices::exchange_kind_name(kind))] = bytes;
  j["exchanged_bytes_by_kind"] = kinds;
  j["link_bytes_per_second"] = r.options_limits.link_bytes_per_second;
  if (r.options_limits.link_bytes_per_second > 0) j["link_seconds"] = link_seconds(r);
  j["fits"] = r.fits();
  j["verified"] = r.verification.verified;
  if (r.latency) {
    nlohmann::json latency;
    latency["target"] = r.target;
    latency["device_mhz"] = r.device_mhz;
    latency["seconds"] = r.latency->seconds;
    latency["compute_seconds"] = r.latency->compute_seconds;
    latency["link_seconds"] = r.latency->link_seconds;
    latency["device_instructions"] = r.latency->device_instructions;
    if (r.one_device_seconds) latency["one_device_seconds"] = *r.one_device_seconds;
    j["latency"] = latency;
  } else {
    j["latency"] = nullptr;
    j["latency_error"] = r.latency_error;
  }
  if (!r.search_candidates.empty()) {
    nlohmann::json candidates = nlohmann::json::array();
    for (size_t i = 0; i < r.search_candidates.size(); ++i) {
      const devices::SearchCandidate& c = r.search_candidates[i];
      candidates.push_back({{"name", c.name},
                            {"seconds", c.seconds},
                            {"excess_bytes", c.excess_bytes},
                            {"fits", c.fits()},
                            {"chosen", static_cast<int>(i) == r.search_chosen}});
    }
    j["search_candidates"] = candidates;
  }
  nlohmann::json list = nlohmann::json::array();
  for (int d = 0; d < r.plan.count_devices(); ++d) {
    const auto& device = r.plan.devices[static_cast<size_t>(d)];
    const auto& memory = r.memory[static_cast<size_t>(d)];
    nlohmann::json dj;
    dj["device"] = d;
    dj["sram_limit_bytes"] = r.options_limits.sram_bytes[static_cast<size_t>(d)];
    if (!r.options_limits.flash_bytes.empty()) {
      dj["flash_limit_bytes"] = r.options_limits.flash_bytes[static_cast<size_t>(d)];
    }
    dj["arena_bytes"] = device.arena_bytes;
    dj["peak_bytes"] = memory.peak_bytes;
    dj["flash_bytes"] = device.flash_bytes;
    nlohmann::json stages = nlohmann::json::array();
    for (size_t s = 0; s < r.plan.stages.size(); ++s) {
      stages.push_back({{"stage", stage_name(graph, r.plan.stages[s])},
                        {"interval_bytes", memory.interval_stage_bytes(static_cast<int>(s))},
                        {"execution_bytes", memory.execution_stage_bytes(static_cast<int>(s))}});
    }
    dj["stages"] = stages;
    list.push_back(dj);
  }
  j["devices"] = list;
  nlohmann::json ops = nlohmann::json::array();
  for (const devices::OperatorChoice& c : r.plan.choices) {
    ops.push_back({{"node", graph.nodes[static_cast<size_t>(c.node)].name},
                   {"split", std::string(devices::split_name(c.split))},
                   {"devices", c.devices}});
  }
  j["operators"] = ops;
  return j;
}

}  // namespace tinyfit::tools
