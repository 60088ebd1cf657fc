// The MOTES search scores a state with Concat inputs written in place as the
// lowering writes them (analysis/concat_in_place.h, the rule both use): on
// seeded random NAS-like cells (float32, so no Concat rescales and its
// inputs may go in place; tests/support/random_row_cell.h) and chains of NAS
// cells (random_nas_chain.h), the search's peak equals the peak of the plan
// it lowers to (plan/lower_motes.h: same order, no in-place merges), in the
// cases whose plan writes a Concat input in place. Before the search knew of
// the rewrite it scored each Concat as a copy, above the plan's peak. The
// search here runs no operator by rows: a loop's own bytes are estimated
// before it is lowered (row_geometry.h), which this test does not check.
//
// Reproduce one case: TINYFIT_ROW_SEED=<seed>; more cases: TINYFIT_ROW_CASES=<n>.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/verify_graph.h"
#include "partition/motes_search.h"
#include "plan/lower_motes.h"
#include "plan/plan_memory.h"
#include "support/random_nas_chain.h"
#include "support/random_row_cell.h"
#include "support/row_loop_runs.h"

namespace tinyfit::driver {
namespace {

kernel_oracle::OracleCase make_net(uint64_t seed, bool& chain) {
  kernel_oracle::Random r(seed * 0x9E3779B97F4A7C15ull + 7);
  chain = r.chance(0.25);
  if (chain) {
    nas_chain::ChainSpec spec;
    spec.seed = seed;
    spec.cells = 3;
    spec.rows = 8;
    spec.cols = 4;
    return nas_chain::make_random_nas_chain(spec);
  }
  row_cell::CellSpec cell;
  cell.seed = seed;
  cell.dtype = ir::DType::kF32;
  cell.nodes = static_cast<int>(r.uniform_int(2, 9));
  cell.rows = r.uniform_int(2, 8);
  cell.cols = r.uniform_int(1, 5);
  cell.reduction = r.chance(0.5);
  return row_cell::make_random_row_cell(cell);
}

TEST(MotesConcatEstimate, SearchedPeakIsTheLoweredPeakWhereConcatInputsGoInPlace) {
  int in_place_cases = 0;
  const exec::testing::RowSeedRun run = exec::testing::for_each_row_seed(200, [&](uint64_t seed) -> std::string {
    bool chain = false;
    const kernel_oracle::OracleCase net = make_net(seed, chain);
    const std::string name = std::string(chain ? "NAS chain" : "cell") + ", seed " + std::to_string(seed);
    if (Status valid = ir::verify_graph(net.graph); !valid) return name + ": generator: " + valid.error().message;
    const analysis::BufferGraph bg = analysis::build_buffer_graph(net.graph);
    const analysis::Order order = analysis::given_order(bg);
    partition::MotesSearchOptions search;
    search.runs_by_rows = [](const ir::Node&) { return false; };
    search.ordinary_latency = 1.0;
    search.scheme_latency_delta = [](const partition::PartitionScheme&, const partition::RowGeometry&) { return 0.0; };
    const partition::MotesSearchResult searched = partition::search_motes_schemes(net.graph, bg, order, search);
    plan::MotesPlanOptions lowering;
    lowering.order = "given";  // the search's order
    Result<plan::MotesPlan> lowered = plan::build_motes_plan(net.graph, bg, order, searched.schemes, lowering);
    if (!lowered) return name + ": lowering: " + lowered.error().format();
    const std::vector<std::string>& techniques = lowered->plan.techniques;
    if (std::find(techniques.begin(), techniques.end(), "concatinplace") == techniques.end()) return {};
    ++in_place_cases;
    const int64_t lowered_peak = plan::compute_plan_memory(lowered->plan).peak_bytes;
    if (searched.peak_bytes == lowered_peak) return {};
    return name + ": searched peak " + std::to_string(searched.peak_bytes) + " bytes, lowered plan's " +
           std::to_string(lowered_peak) + " (" + lowered->note + ")";
  });
  // The rewrite must happen, or the check above tests nothing.
  if (!run.one_seed && run.cases == 200) {
    EXPECT_GE(in_place_cases, 50);
  }
}

}  // namespace
}  // namespace tinyfit::driver
