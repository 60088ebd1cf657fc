// Row loops over whole chains of NAS-like cells run (issue 11, NAS cells):
// seeded random chains (tests/support/random_nas_chain.h: a stride-2 stem,
// cells that read the two cells before them, factorized reduces, reduction
// cells), int8, lowered with one row loop from a random operator to the
// chain's last (plan/lower_row_loop.h) at a random tile, so that tensors
// with readers at very different depths (the stem's output, read by the
// first cell's windows and by the second cell's factorized reduce) run
// inside the loop and the lowering chooses which readers run ahead; then
// placed, verified and executed in an arena of exactly arena_bytes filled
// with poison: bit-exact with the reference interpreter, and the plan's
// MACs the graph's.
//
// Reproduce one case: TINYFIT_ROW_SEED=<seed>; more cases: TINYFIT_ROW_CASES=<n>.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include "ir/verify_graph.h"
#include "partition/readers_to_sink_rows.h"
#include "partition/split_input_readers.h"
#include "plan/lower_row_loop.h"
#include "support/random_nas_chain.h"
#include "support/row_loop_runs.h"

namespace tinyfit::exec {
namespace {

struct ChainCase {
  nas_chain::ChainSpec chain;
  int first_op = 0;  // the row loop runs operators first_op .. the last
  int64_t tile = 1;
  bool workspaces = false;
};

std::string describe_case(const ChainCase& c) {
  std::ostringstream out;
  out << "seed " << c.chain.seed << ", " << c.chain.cells << " cells, " << c.chain.rows << "x" << c.chain.cols
      << " stem rows, " << c.chain.channels << " channels, loop from operator " << c.first_op << ", tile " << c.tile
      << (c.workspaces ? ", fast-kernel workspaces" : "");
  return out.str();
}

// Empty when the row-loop plan matches the reference; otherwise what differs.
std::string check_case(const ChainCase& c) {
  const kernel_oracle::OracleCase net = nas_chain::make_random_nas_chain(c.chain);
  if (Status valid = ir::verify_graph(net.graph); !valid) return "generator: " + valid.error().message;
  const analysis::BufferGraph bg = analysis::build_buffer_graph(net.graph);
  // A cell may leave a preprocessed input unread: the operators no graph
  // output depends on run after the loop (their reads make the tensors they
  // read whole), the others in the given order, the loop over the last of
  // them.
  const analysis::Order given = analysis::given_order(bg);
  std::vector<bool> needed(bg.operators.size(), false);
  for (auto op = given.rbegin(); op != given.rend(); ++op) {
    for (int b : bg.operators[static_cast<size_t>(*op)].outputs) {
      const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
      bool read = buffer.is_model_output;
      for (int consumer : buffer.consumers) read = read || needed[static_cast<size_t>(consumer)];
      if (read) needed[static_cast<size_t>(*op)] = true;
    }
  }
  analysis::Order order, unread;
  for (int op : given) (needed[static_cast<size_t>(op)] ? order : unread).push_back(op);
  plan::RowLoopSpec spec;
  for (size_t k = static_cast<size_t>(std::min(c.first_op, static_cast<int>(order.size()) - 1)); k < order.size(); ++k) {
    spec.ops.push_back(order[k]);
  }
  order.insert(order.end(), unread.begin(), unread.end());
  const ir::Node& sink = net.graph.nodes.at(static_cast<size_t>(bg.operators.at(static_cast<size_t>(spec.ops.back())).node));
  spec.tile = std::min(c.tile, net.graph.output_tensor(sink, 0).shape[1]);
  Result<plan::Plan> plan = plan::build_row_loop_plan(net.graph, bg, order, {spec});
  if (!plan) return "lowering: " + plan.error().format();
  return testing::check_row_plan(net, std::move(*plan), c.workspaces);
}

// What a test makes of a loop's operators (a stretch of needed operators).
using ExtendLoop = std::function<std::vector<int>(const ir::Graph&, const analysis::BufferGraph&, std::vector<int>)>;

// The same chains with the loop ending at a random cell's last operator
// (before the chain's last cell) and starting at `first_op` or, with
// `from_cell_start`, at the cell's first operator, its operators then given
// to `extend`: readers after it join (several sinks), operators leave it
// (they run before it). Empty when the plan matches the reference;
// `changed` counts the loops `extend` changed.
std::string check_extended_case(const ChainCase& c, int cell, bool from_cell_start, const ExtendLoop& extend,
                                int& changed) {
  const kernel_oracle::OracleCase net = nas_chain::make_random_nas_chain(c.chain);
  if (Status valid = ir::verify_graph(net.graph); !valid) return "generator: " + valid.error().message;
  const analysis::BufferGraph bg = analysis::build_buffer_graph(net.graph);
  // A cell may leave a preprocessed input unread: the loop leaves out what
  // no graph output depends on.
  std::vector<bool> needed(bg.operators.size(), false);
  for (size_t op = bg.operators.size(); op-- > 0;) {
    for (int b : bg.operators[op].outputs) {
      const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
      bool read = buffer.is_model_output;
      for (int consumer : buffer.consumers) read = read || needed[static_cast<size_t>(consumer)];
      if (read) needed[op] = true;
    }
  }
  const std::string prefix = "cell" + std::to_string(cell) + "/";
  int last = -1;
  for (size_t op = 0; op < bg.operators.size(); ++op) {
    if (needed[op] && bg.operators[op].name.rfind(prefix, 0) == 0) last = static_cast<int>(op);
  }
  if (last < 0) return {};  // the cell's output is unread (a 2-cell chain's reduction cells)
  int first = std::min(c.first_op, last);
  if (from_cell_start) {
    for (first = last; first > 0 && bg.operators[static_cast<size_t>(first - 1)].name.rfind(prefix, 0) == 0;) --first;
  }
  std::vector<int> stretch;
  for (int op = first; op <= last; ++op) {
    if (needed[static_cast<size_t>(op)]) stretch.push_back(op);
  }
  const std::vector<int> ops = extend(net.graph, bg, stretch);
  if (ops != stretch) ++changed;
  // The given order with the loop's operators together: what depends on the
  // loop (or is the loop) in its order, after what does not.
  std::vector<bool> in_loop(bg.operators.size(), false), after(bg.operators.size(), false);
  for (int op : ops) in_loop[static_cast<size_t>(op)] = true;
  analysis::Order order;
  for (int op : analysis::given_order(bg)) {
    for (int b : bg.operators[static_cast<size_t>(op)].inputs) {
      const int producer = bg.buffers[static_cast<size_t>(b)].producer;
      if (producer >= 0 && (in_loop[static_cast<size_t>(producer)] || after[static_cast<size_t>(producer)])) {
        after[static_cast<size_t>(op)] = true;
      }
    }
    if (!in_loop[static_cast<size_t>(op)] && !after[static_cast<size_t>(op)]) order.push_back(op);
  }
  order.insert(order.end(), ops.begin(), ops.end());
  for (int op : analysis::given_order(bg)) {
    if (after[static_cast<size_t>(op)] && !in_loop[static_cast<size_t>(op)]) order.push_back(op);
  }
  plan::RowLoopSpec spec;
  spec.ops = ops;
  const ir::Node& sink = net.graph.nodes.at(static_cast<size_t>(bg.operators.at(static_cast<size_t>(ops.back())).node));
  spec.tile = std::min(c.tile, net.graph.output_tensor(sink, 0).shape[1]);
  Result<plan::Plan> plan = plan::build_row_loop_plan(net.graph, bg, order, {spec});
  if (!plan) return "lowering: " + plan.error().format();
  return testing::check_row_plan(net, std::move(*plan), c.workspaces);
}

// Random cases: 2-4 cells over stem outputs of 8-16 rows and 4 or 8 cols
// (multiples of 4:
// two reduction cells halve them), the loop from the first operator or a
// random one of the first cells, tiles 1-3.
ChainCase make_case(uint64_t seed) {
  kernel_oracle::Random r(seed * 0x9E3779B97F4A7C15ull + 53);
  ChainCase c;
  c.chain.seed = seed;
  c.chain.cells = static_cast<int>(r.uniform_int(2, 4));
  c.chain.rows = 4 * r.uniform_int(2, 4);
  c.chain.cols = 4 * r.uniform_int(1, 2);
  c.chain.channels = 2 * r.uniform_int(1, 2);
  c.first_op = r.chance(0.5) ? 0 : static_cast<int>(r.uniform_int(0, 12));
  c.tile = r.uniform_int(1, 3);
  c.workspaces = r.chance(0.5);
  return c;
}

TEST(RowLoopNasChainExecution, RandomChainsOfCellsInOneRowLoopMatchTheReferenceBitForBit) {
  testing::for_each_row_seed(40, [](uint64_t seed) -> std::string {
    const ChainCase c = make_case(seed);
    const std::string failure = check_case(c);
    if (failure.empty()) return {};
    return describe_case(c) + ": " + failure + "\n" +
           testing::describe_operators(nas_chain::make_random_nas_chain(c.chain).graph);
  });
}

bool always(const ir::Node&) { return true; }

TEST(RowLoopNasChainExecution, LoopsWithTheReadersThatBringWideTensorsToTheSinksRowsMatchTheReference) {
  int pulled = 0;
  const ExtendLoop readers = [](const ir::Graph& graph, const analysis::BufferGraph& bg, std::vector<int> ops) {
    return partition::add_readers_to_sink_rows(graph, bg, ops, always);
  };
  testing::for_each_row_seed(40, [&](uint64_t seed) -> std::string {
    const ChainCase c = make_case(seed);
    kernel_oracle::Random r(seed + 7);
    const int cell = static_cast<int>(r.uniform_int(0, c.chain.cells - 2));
    const std::string failure = check_extended_case(c, cell, false, readers, pulled);
    if (failure.empty()) return {};
    return describe_case(c) + ", loop to the end of cell " + std::to_string(cell) + " with its readers: " + failure +
           "\n" + testing::describe_operators(nas_chain::make_random_nas_chain(c.chain).graph);
  });
  // Every chain has a factorized reduce of the stem in cell 1: the loops
  // ending at cell 0 take it.
  EXPECT_GT(pulled, 0);
}

// Loops over one cell with the later readers of the wide tensors the loop
// reads or makes (partition/split_input_readers.h: the next cells'
// preprocessing of the cell's output and of the tensors it reads), and, on
// every other seed, without the operators that only narrow a tensor from
// before the loop (they run before it).
TEST(RowLoopNasChainExecution, LoopsWithTheLaterReadersOfTheirWideTensorsMatchTheReference) {
  int joined = 0, hoisted = 0;
  testing::for_each_row_seed(40, [&](uint64_t seed) -> std::string {
    const ChainCase c = make_case(seed);
    kernel_oracle::Random r(seed + 11);
    const int cell = static_cast<int>(r.uniform_int(0, c.chain.cells - 2));
    const bool hoist = seed % 2 == 1;
    const ExtendLoop co_readers = [&](const ir::Graph& graph, const analysis::BufferGraph& bg, std::vector<int> ops) {
      std::vector<int> extended = partition::add_split_input_readers(graph, bg, ops, always);
      if (extended.size() > ops.size()) ++joined;
      if (!hoist) return extended;
      std::vector<int> lean = partition::hoist_narrowing_readers(bg, extended);
      if (lean.size() < extended.size()) ++hoisted;
      return lean;
    };
    int changed = 0;
    const std::string failure = check_extended_case(c, cell, true, co_readers, changed);
    if (failure.empty()) return {};
    return describe_case(c) + ", loop over cell " + std::to_string(cell) + " with its wide tensors' readers" +
           (hoist ? " and without what narrows" : "") + ": " + failure + "\n" +
           testing::describe_operators(nas_chain::make_random_nas_chain(c.chain).graph);
  });
  EXPECT_GT(joined, 0);
  EXPECT_GT(hoisted, 0);
}

}  // namespace
}  // namespace tinyfit::exec
