// tinyfit_bench_random_orders: MemoriaNova's ordering result (its §4: an
// optimised operator order needs about 12% less memory than random ones)
// measured on tinyfit's order. For each model, the peak of `samples` random
// topological orders (each step picks uniformly among the ready operators,
// from a fixed seed) against the peak of `--schedule best`, both under the
// same memory model: ordinary execution, and with in-place merges (the
// random orders get the merges analysis::apply_inplace picks for them, so
// both sides use the same rule).
//
// Output: a Markdown table (docs/benchmarks/random_orders.md is this
// output). Exit codes: 0 table printed; 2 bad command line or unknown model;
// 70 a tinyfit order above the best random one (a search that lost to chance
// is a bug to report).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/buffer_graph.h"
#include "import/import_model.h"
#include "schedule/order_best.h"
#include "schedule/order_peak.h"
#include "zoo/zoo.h"

namespace tinyfit::bench {
namespace {

// The NAS and RandWire networks of the zoo: the graphs with many valid
// orders (a chain has one).
const std::vector<std::string> kDefaultModels = {
    "zoo:nasnet-a-cifar-int8",  "zoo:nasnet-a-imagenet-int8", "zoo:darts-cifar-int8",
    "zoo:darts-imagenet-int8",  "zoo:amoebanet-cifar-int8",   "zoo:amoebanet-imagenet-int8",
    "zoo:randwire-32-s1-int8",
};

// Kahn's algorithm choosing uniformly among the ready operators.
analysis::Order draw_random_order(const analysis::BufferGraph& bg, std::mt19937_64& rng) {
  const int n = static_cast<int>(bg.operators.size());
  std::vector<int> waiting_inputs(n, 0);
  for (int op = 0; op < n; ++op) {
    for (int b : bg.operators[op].inputs) waiting_inputs[op] += bg.buffers[b].producer >= 0 ? 1 : 0;
  }
  std::vector<int> ready;
  for (int op = 0; op < n; ++op) {
    if (waiting_inputs[op] == 0) ready.push_back(op);
  }
  analysis::Order order;
  order.reserve(n);
  while (!ready.empty()) {
    std::uniform_int_distribution<size_t> pick(0, ready.size() - 1);
    const size_t i = pick(rng);
    const int op = ready[i];
    ready[i] = ready.back();
    ready.pop_back();
    order.push_back(op);
    for (int b : bg.operators[op].outputs) {
      for (int consumer : bg.buffers[b].consumers) {
        if (--waiting_inputs[consumer] == 0) ready.push_back(consumer);
      }
    }
  }
  return order;
}

struct PeakStats {
  int64_t min = 0, median = 0, max = 0;
};

PeakStats summarise(std::vector<int64_t> peaks) {
  std::sort(peaks.begin(), peaks.end());
  const size_t n = peaks.size();
  // The median of an even count is the mean of the middle two.
  const int64_t median = n % 2 == 1 ? peaks[n / 2] : (peaks[n / 2 - 1] + peaks[n / 2]) / 2;
  return {peaks.front(), median, peaks.back()};
}

struct Row {
  std::string model;
  int operators = 0;
  PeakStats random;
  int64_t tinyfit_peak = 0;
  bool optimal = false;
  double seconds = 0.0;
};

std::string with_commas(int64_t v) {
  std::string digits = std::to_string(v);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

Row measure(const std::string& model, const analysis::BufferGraph& bg, bool inplace, int samples, uint64_t seed,
            double time_limit_seconds) {
  Row row{model, static_cast<int>(bg.operators.size()), {}, 0, false, 0.0};
  std::mt19937_64 rng(seed);
  std::vector<int64_t> peaks;
  peaks.reserve(static_cast<size_t>(samples));
  for (int s = 0; s < samples; ++s) {
    peaks.push_back(schedule::score_order(bg, draw_random_order(bg, rng), inplace).peak_bytes);
  }
  row.random = summarise(std::move(peaks));
  schedule::OrderOptions options;
  options.inplace = inplace;
  options.deadline = Deadline(std::chrono::duration<double>(time_limit_seconds));
  const auto start = std::chrono::steady_clock::now();
  const schedule::OrderResult best = schedule::order_best(bg, options);
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  row.tinyfit_peak = best.peak_bytes;
  row.optimal = best.optimal;
  return row;
}

void print_table(const std::vector<Row>& rows, bool inplace, int samples) {
  std::printf("\n### %s (%d random orders per model)\n\n", inplace ? "With in-place merges" : "Ordinary execution",
              samples);
  std::printf("| model | operators | random min | random median | random max | tinyfit (best) | "
              "below the median | order search |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (const Row& r : rows) {
    const double below = 100.0 * (1.0 - static_cast<double>(r.tinyfit_peak) / static_cast<double>(r.random.median));
    std::printf("| %s | %d | %s | %s | %s | %s | %.1f%% | %s, %.1f s |\n", r.model.c_str(), r.operators,
                with_commas(r.random.min).c_str(), with_commas(r.random.median).c_str(),
                with_commas(r.random.max).c_str(), with_commas(r.tinyfit_peak).c_str(), below,
                r.optimal ? "optimal" : "best found", r.seconds);
  }
}

int run(int argc, char** argv) {
  CLI::App app{"Peak of tinyfit's operator order against random topological orders (MemoriaNova's order result)"};
  std::vector<std::string> models = kDefaultModels;
  int samples = 100;
  uint64_t seed = 1;
  double time_limit_seconds = 60.0;
  app.add_option("--model", models, "models (files or zoo:NAME); default: the NAS and RandWire zoo networks");
  app.add_option("--samples", samples, "random orders per model")->check(CLI::Range(1, 100000));
  app.add_option("--seed", seed, "seed of the random orders");
  app.add_option("--time-limit", time_limit_seconds, "seconds for tinyfit's order search per model and memory model")
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  std::vector<Row> ordinary, inplace;
  bool lost_to_chance = false;
  for (const std::string& model : models) {
    std::fprintf(stderr, "%s ...\n", model.c_str());
    Result<ir::Graph> graph = import::import_model(model, {});
    if (!graph) {
      std::fprintf(stderr, "tinyfit_bench_random_orders: error: %s\n", graph.error().format().c_str());
      return 2;
    }
    const analysis::BufferGraph bg = analysis::build_buffer_graph(*graph);
    ordinary.push_back(measure(model, bg, false, samples, seed, time_limit_seconds));
    inplace.push_back(measure(model, bg, true, samples, seed, time_limit_seconds));
    for (const Row* r : {&ordinary.back(), &inplace.back()}) {
      if (r->tinyfit_peak > r->random.min) {
        std::fprintf(stderr, "tinyfit_bench_random_orders: problem: %s: tinyfit's order %lld is above a random one %lld\n",
                     model.c_str(), static_cast<long long>(r->tinyfit_peak), static_cast<long long>(r->random.min));
        lost_to_chance = true;
      }
    }
  }
  std::printf("Peak activation memory (bytes) of tinyfit's order (`--schedule best`) against random topological "
              "orders; seed %llu.\n",
              static_cast<unsigned long long>(seed));
  print_table(ordinary, false, samples);
  print_table(inplace, true, samples);
  return lost_to_chance ? 70 : 0;
}

}  // namespace
}  // namespace tinyfit::bench

int main(int argc, char** argv) { return tinyfit::bench::run(argc, argv); }
