// A target's cost table: instructions per unit of each call feature, per
// runtime kernel, and per unit of each run feature, fitted from measured
// probes (bench/cost_tables), with the probes themselves kept so the fit can
// be checked or redone. Stored as JSON in src/cost/tables/<target>.json and
// embedded in the binary.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cost/plan_work.h"
#include "support/diag.h"

namespace tinyfit::cost {

// One measured program: a one-node graph (or a small chain) under one plan.
struct Probe {
  std::string name;     // "conv/qs8/17"
  PlanWork work;        // exec/plan_work.h of the probe's plan
  double instructions;  // measured, one inference
};

struct KernelCost {
  FeatureVector coefficients{};  // instructions per unit of each feature
  int probes = 0;                // probes that call the kernel
  double rms_error = 0;          // of those probes' predictions, relative
  double max_error = 0;
  // Set when the row was refitted on its own (tinyfit_bench_cost_tables
  // --kernels): that command, date and tree. Kept on the row's own line so
  // that refits of different kernels merge without conflict.
  std::string refitted;
};

struct CostTable {
  std::string target;       // "cortex-m4", "cortex-m7", "host"
  std::string description;  // the board, compiler and counter
  std::string generated;    // the command, date and tree of the whole table's fit
  RunFeatureVector run_coefficients{};
  std::map<std::string, KernelCost, std::less<>> kernels;
  std::vector<std::string> unmeasured;  // kernels.def rows no probe reached
  std::vector<Probe> probes;
};

// Errors name the table and the field (a table is data, so a bad one is bad input).
Result<CostTable> parse_cost_table(std::string_view json_text, std::string_view source);
std::string format_cost_table(const CostTable& table);  // pretty JSON, stable order

// The table built into the binary for `target`; an unknown target is a
// command-line error listing the known ones.
Result<const CostTable*> find_cost_table(std::string_view target);
std::vector<std::string> list_cost_targets();

}  // namespace tinyfit::cost
