#include "cost/cost_table.h"

#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

#include "cost/embedded_tables.h"

namespace tinyfit::cost {
namespace {

using nlohmann::json;

json list_call_feature_names() {
  json names = json::array();
  for (int f = 0; f < kFeatureCount; ++f) names.push_back(feature_name(static_cast<Feature>(f)));
  return names;
}

json list_run_feature_names() {
  json names = json::array();
  for (int f = 0; f < kRunFeatureCount; ++f) names.push_back(run_feature_name(static_cast<RunFeature>(f)));
  return names;
}

template <size_t N>
json to_json_array(const std::array<double, N>& values) {
  json out = json::array();
  for (double v : values) out.push_back(v);
  return out;
}

template <size_t N>
std::array<double, N> from_json_array(const json& values) {
  if (!values.is_array() || values.size() != N) throw json::type_error::create(302, "expected " + std::to_string(N) + " numbers", &values);
  std::array<double, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = values[i].get<double>();
  return out;
}

json format_work(const PlanWork& work) {
  json kernels = json::object();
  for (const auto& [name, features] : work.kernels) kernels[name] = to_json_array(features);
  return {{"run", to_json_array(work.run)}, {"kernels", kernels}};
}

PlanWork parse_work(const json& item) {
  PlanWork work;
  work.run = from_json_array<kRunFeatureCount>(item.at("run"));
  for (const auto& [name, features] : item.at("kernels").items()) {
    work.kernels[name] = from_json_array<kFeatureCount>(features);
  }
  return work;
}

}  // namespace

Result<CostTable> parse_cost_table(std::string_view json_text, std::string_view source) {
  try {
    const json j = json::parse(json_text);
    if (j.at("call_features") != list_call_feature_names() || j.at("run_features") != list_run_feature_names()) {
      return fail(std::string(source) +
                  ": the table's features differ from this tinyfit's (regenerate it with tinyfit_bench_cost_tables)");
    }
    CostTable table;
    table.target = j.at("target").get<std::string>();
    table.description = j.at("description").get<std::string>();
    table.generated = j.at("generated").get<std::string>();
    table.run_coefficients = from_json_array<kRunFeatureCount>(j.at("run_coefficients"));
    for (const auto& [name, item] : j.at("kernels").items()) {
      KernelCost cost;
      cost.coefficients = from_json_array<kFeatureCount>(item.at("coefficients"));
      cost.probes = item.at("probes").get<int>();
      cost.rms_error = item.at("rms_error").get<double>();
      cost.max_error = item.at("max_error").get<double>();
      cost.refitted = item.value("refitted", "");
      table.kernels.emplace(name, cost);
    }
    table.unmeasured = j.at("unmeasured").get<std::vector<std::string>>();
    for (const json& item : j.at("probes")) {
      table.probes.push_back({item.at("name").get<std::string>(), parse_work(item.at("work")),
                              item.at("instructions").get<double>()});
    }
    return table;
  } catch (const json::exception& e) {
    return fail(std::string(source) + ": not a cost table: " + e.what());
  }
}

std::string format_cost_table(const CostTable& table) {
  json kernels = json::object();
  for (const auto& [name, cost] : table.kernels) {
    kernels[name] = {{"coefficients", to_json_array(cost.coefficients)},
                     {"probes", cost.probes},
                     {"rms_error", cost.rms_error},
                     {"max_error", cost.max_error}};
    if (!cost.refitted.empty()) kernels[name]["refitted"] = cost.refitted;
  }
  json probes = json::array();
  for (const Probe& probe : table.probes) {
    probes.push_back({{"name", probe.name}, {"instructions", probe.instructions}, {"work", format_work(probe.work)}});
  }
  // One line per kernel and per probe: readable diffs, a few hundred KB.
  const std::vector<std::pair<std::string, json>> fields = {{"target", table.target},
                                                            {"description", table.description},
                                                            {"generated", table.generated},
                                                            {"call_features", list_call_feature_names()},
                                                            {"run_features", list_run_feature_names()},
                                                            {"run_coefficients", to_json_array(table.run_coefficients)},
                                                            {"kernels", kernels},
                                                            {"unmeasured", table.unmeasured},
                                                            {"probes", probes}};
  std::string text = "{\n";
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& [key, value] = fields[i];
    text += json(key).dump() + ": ";
    if (value.is_object() || (value.is_array() && !value.empty() && value.front().is_object())) {
      const bool object = value.is_object();
      text += object ? "{\n" : "[\n";
      size_t n = 0;
      for (auto it = value.begin(); it != value.end(); ++it, ++n) {
        text += "  " + (object ? json(it.key()).dump() + ": " : "") + it->dump() + (n + 1 < value.size() ? ",\n" : "\n");
      }
      text += object ? "}" : "]";
    } else {
      text += value.dump();
    }
    text += i + 1 < fields.size() ? ",\n" : "\n}\n";
  }
  return text;
}

std::vector<std::string> list_cost_targets() {
  std::vector<std::string> targets;
  for (const EmbeddedTable& table : list_embedded_tables()) targets.emplace_back(table.target);
  return targets;
}

Result<const CostTable*> find_cost_table(std::string_view target) {
  // Parsed once per target, on first use.
  static std::map<std::string, std::unique_ptr<CostTable>, std::less<>> parsed;
  static std::mutex parsing;
  const std::lock_guard<std::mutex> lock(parsing);
  if (auto found = parsed.find(target); found != parsed.end()) return found->second.get();
  for (const EmbeddedTable& embedded : list_embedded_tables()) {
    if (embedded.target != target) continue;
    TINYFIT_ASSIGN_OR_RETURN(CostTable table,
                             parse_cost_table(embedded.text(), "src/cost/tables/" + std::string(target) + ".json"));
    return parsed.emplace(std::string(target), std::make_unique<CostTable>(std::move(table))).first->second.get();
  }
  std::string known;
  for (const std::string& t : list_cost_targets()) known += (known.empty() ? "" : ", ") + t;
  return fail("--target: no cost table for '" + std::string(target) + "' (use " + known + ")",
              ExitCode::kBadCommandLine);
}

}  // namespace tinyfit::cost
