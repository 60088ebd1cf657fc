#include "cost/fit_cost_table.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "cost/feature_mask.h"
#include "cost/nnls.h"
#include "cost/predict.h"

namespace tinyfit::cost {
namespace {

// Passes of block coordinate descent: the blocks overlap only through the
// per-call and per-run constants, and the fit settles within a few dozen.
constexpr int kPasses = 60;

double predict_run(const CostTable& table, const PlanWork& work) {
  double total = 0;
  for (size_t i = 0; i < work.run.size(); ++i) total += table.run_coefficients[i] * work.run[i];
  return total;
}

// Refits one block: the rows of the probes in `rows`, each divided by its
// measured instructions (relative error), against what the rest predicts.
template <size_t N>
std::array<double, N> refit_block(const CostTable& table, const std::vector<size_t>& rows,
                                  const std::vector<double>& others,
                                  const std::function<std::array<double, N>(const Probe&)>& block_features) {
  std::vector<std::vector<double>> a;
  std::vector<double> b;
  for (size_t r : rows) {
    const Probe& probe = table.probes[r];
    const std::array<double, N> features = block_features(probe);
    std::vector<double> row(N);
    for (size_t j = 0; j < N; ++j) row[j] = features[j] / probe.instructions;
    a.push_back(std::move(row));
    b.push_back((probe.instructions - others[r]) / probe.instructions);
  }
  const std::vector<double> x = solve_nnls(a, b);
  std::array<double, N> out{};
  std::copy(x.begin(), x.end(), out.begin());
  return out;
}

// One block coordinate descent step for one kernel: its rows' prediction
// without it, its coefficients refitted against that, its rows re-predicted.
void refit_kernel(CostTable& table, const std::string& kernel, const std::vector<size_t>& rows,
                  std::vector<double>& others, std::vector<double>& predicted) {
  KernelCost& cost = table.kernels[kernel];
  for (size_t r : rows) {
    others[r] = predicted[r] - predict_kernel_instructions(kernel, cost, table.probes[r].work.kernels.find(kernel)->second);
  }
  cost.coefficients = refit_block<kFeatureCount>(table, rows, others, [&kernel](const Probe& p) {
    return mask_features(kernel, p.work.kernels.find(kernel)->second);
  });
  for (size_t r : rows) {
    predicted[r] = others[r] + predict_kernel_instructions(kernel, cost, table.probes[r].work.kernels.find(kernel)->second);
  }
}

// The relative error of the fitted prediction over a kernel's probes.
void record_errors(const CostTable& table, const std::vector<size_t>& rows, const std::vector<double>& predicted,
                   KernelCost& cost) {
  double sum_squares = 0, worst = 0;
  for (size_t r : rows) {
    const double error = std::abs(predicted[r] - table.probes[r].instructions) / table.probes[r].instructions;
    sum_squares += error * error;
    worst = std::max(worst, error);
  }
  cost.rms_error = std::sqrt(sum_squares / static_cast<double>(cost.probes));
  cost.max_error = worst;
}

}  // namespace

void fit_cost_table(CostTable& table) {
  table.kernels.clear();
  table.run_coefficients = {};
  std::map<std::string, std::vector<size_t>, std::less<>> rows_of_kernel;
  std::vector<size_t> all_rows;
  for (size_t r = 0; r < table.probes.size(); ++r) {
    all_rows.push_back(r);
    for (const auto& entry : table.probes[r].work.kernels) rows_of_kernel[entry.first].push_back(r);
  }
  for (const auto& [kernel, rows] : rows_of_kernel) table.kernels[kernel].probes = static_cast<int>(rows.size());

  // predicted[r] is kept current as blocks change.
  std::vector<double> predicted(table.probes.size(), 0.0);
  for (int pass = 0; pass < kPasses; ++pass) {
    std::vector<double> others(table.probes.size());
    for (size_t r = 0; r < table.probes.size(); ++r) {
      others[r] = predicted[r] - predict_run(table, table.probes[r].work);
    }
    table.run_coefficients = refit_block<kRunFeatureCount>(
        table, all_rows, others, [](const Probe& p) { return p.work.run; });
    for (size_t r = 0; r < table.probes.size(); ++r) predicted[r] = others[r] + predict_run(table, table.probes[r].work);

    for (const auto& [kernel, rows] : rows_of_kernel) refit_kernel(table, kernel, rows, others, predicted);
  }
  for (auto& [kernel, cost] : table.kernels) record_errors(table, rows_of_kernel[kernel], predicted, cost);
}

void refit_kernel_rows(CostTable& table, const std::vector<std::string>& kernels) {
  std::map<std::string, std::vector<size_t>, std::less<>> rows_of_kernel;
  for (const std::string& kernel : kernels) {
    rows_of_kernel[kernel];
    table.kernels[kernel] = KernelCost{};
  }
  std::vector<double> predicted(table.probes.size(), 0.0);
  for (size_t r = 0; r < table.probes.size(); ++r) {
    predicted[r] = predict_run(table, table.probes[r].work);
    for (const auto& [kernel, features] : table.probes[r].work.kernels) {
      if (auto listed = rows_of_kernel.find(kernel); listed != rows_of_kernel.end()) listed->second.push_back(r);
      if (auto cost = table.kernels.find(kernel); cost != table.kernels.end()) {
        predicted[r] += predict_kernel_instructions(kernel, cost->second, features);
      }
    }
  }
  for (const auto& [kernel, rows] : rows_of_kernel) table.kernels[kernel].probes = static_cast<int>(rows.size());
  std::vector<double> others(table.probes.size());
  for (int pass = 0; pass < kPasses; ++pass) {
    for (const auto& [kernel, rows] : rows_of_kernel) {
      if (!rows.empty()) refit_kernel(table, kernel, rows, others, predicted);
    }
  }
  for (const auto& [kernel, rows] : rows_of_kernel) {
    if (rows.empty()) {
      table.kernels.erase(kernel);
    } else {
      record_errors(table, rows, predicted, table.kernels[kernel]);
    }
  }
}

void replace_kernel_probes(CostTable& table, const std::vector<std::string>& kernels, std::vector<Probe> fresh) {
  std::erase_if(table.probes, [&](const Probe& probe) {
    return std::any_of(kernels.begin(), kernels.end(),
                       [&](const std::string& kernel) { return probe.work.kernels.contains(kernel); });
  });
  for (Probe& probe : fresh) {
    auto same = std::find_if(table.probes.begin(), table.probes.end(),
                             [&](const Probe& p) { return p.name == probe.name; });
    if (same != table.probes.end()) {
      *same = std::move(probe);
    } else {
      table.probes.push_back(std::move(probe));
    }
  }
}

}  // namespace tinyfit::cost
