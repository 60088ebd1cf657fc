// The bench's two outputs: one Markdown table for people (docs/benchmarks/),
// one JSON object for machines. Neither computes anything.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure_memory_plans.h"

namespace tinyfit::bench {

// Where and how the numbers were measured: ratios from one run only compare
// within that run, so the run is described next to them.
struct BenchRun {
  std::string command;
  std::string date_utc;
  std::string machine;        // CPU model and core count
  std::string build_type;     // CMAKE_BUILD_TYPE the bench was compiled with
  std::string models_dir;
  double time_limit_seconds = 0.0;
  std::vector<ModelMeasurement> models;
};

void print_markdown(std::ostream& out, const BenchRun& run);

nlohmann::json make_json(const BenchRun& run);

}  // namespace tinyfit::bench
