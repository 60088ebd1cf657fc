#include "partition/contract_loops.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "support/diag.h"

namespace tinyfit::partition {
namespace {

// Kahn's algorithm taking, among the ready operators, the smallest key
// (ties: the smaller index): the topological order closest to the order the
// keys describe. O(operators log operators + buffers).
analysis::Order order_by_keys(const analysis::BufferGraph& graph, const std::vector<int64_t>& key) {
  const size_t n = graph.operators.size();
  std::vector<int> waiting(n, 0);
  for (size_t op = 0; op < n; ++op) {
    for (int b : graph.operators[op].inputs) {
      if (graph.buffers[static_cast<size_t>(b)].producer >= 0) ++waiting[op];
    }
  }
  using Entry = std::pair<int64_t, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (size_t op = 0; op < n; ++op) {
    if (waiting[op] == 0) ready.push({key[op], static_cast<int>(op)});
  }
  analysis::Order order;
  while (!ready.empty()) {
    const int op = ready.top().second;
    ready.pop();
    order.push_back(op);
    for (int b : graph.operators[static_cast<size_t>(op)].outputs) {
      for (int reader : graph.buffers[static_cast<size_t>(b)].consumers) {
        // A reader counts each input buffer once (inputs are unique).
        if (--waiting[static_cast<size_t>(reader)] == 0) ready.push({key[static_cast<size_t>(reader)], reader});
      }
    }
  }
  TINYFIT_CHECK(order.size() == n) << "contracted graph has a cycle: a loop is not convex";
  return order;
}

}  // namespace

ContractedGraph contract_loops(const analysis::BufferGraph& bg, const std::vector<LoopSummary>& loops) {
  const size_t n = bg.operators.size();
  std::vector<int> loop_of_op(n, -1);
  for (size_t l = 0; l < loops.size(); ++l) {
    for (int op : loops[l].operators) {
      TINYFIT_CHECK(loop_of_op[static_cast<size_t>(op)] < 0) << "operator " << op << " in two loops";
      loop_of_op[static_cast<size_t>(op)] = static_cast<int>(l);
    }
  }
  // Units: every operator outside loops, then every loop, each with the
  // original buffers it reads and writes (a buffer inside one loop is neither).
  auto inside_loop = [&](size_t b) {
    const analysis::Buffer& buffer = bg.buffers[b];
    if (buffer.producer < 0 || buffer.is_model_output) return -1;
    const int loop = loop_of_op[static_cast<size_t>(buffer.producer)];
    if (loop < 0) return -1;
    for (int reader : buffer.consumers) {
      if (loop_of_op[static_cast<size_t>(reader)] != loop) return -1;
    }
    return loop;
  };
  struct Unit {
    std::vector<int> inputs, outputs;  // original buffer indices
    int64_t workspace_bytes = 0;
    int loop = -1;
    int64_t given_key = 0;
    ir::NodeId node = -1;
    std::string name;
  };
  std::vector<Unit> units;
  std::vector<int> unit_of_op(n, -1);
  for (size_t op = 0; op < n; ++op) {
    if (loop_of_op[op] >= 0) continue;
    const analysis::Operator& o = bg.operators[op];
    unit_of_op[op] = static_cast<int>(units.size());
    units.push_back({o.inputs, o.outputs, o.workspace_bytes, -1, static_cast<int64_t>(op), o.node, o.name});
  }
  for (size_t l = 0; l < loops.size(); ++l) {
    Unit unit;
    unit.loop = static_cast<int>(l);
    unit.workspace_bytes = loops[l].internal_bytes;
    unit.given_key = loops[l].operators.back();
    unit.name = loops[l].name;
    for (int op : loops[l].operators) {
      unit_of_op[static_cast<size_t>(op)] = static_cast<int>(units.size());
      const analysis::Operator& o = bg.operators[static_cast<size_t>(op)];
      for (int b : o.inputs) {
        const int producer = bg.buffers[static_cast<size_t>(b)].producer;
        if (producer < 0 || loop_of_op[static_cast<size_t>(producer)] != static_cast<int>(l)) unit.inputs.push_back(b);
      }
      for (int b : o.outputs) {
        if (inside_loop(static_cast<size_t>(b)) < 0) unit.outputs.push_back(b);
      }
    }
    std::sort(unit.inputs.begin(), unit.inputs.end());
    unit.inputs.erase(std::unique(unit.inputs.begin(), unit.inputs.end()), unit.inputs.end());
    units.push_back(std::move(unit));
  }

  // Buffers that survive, in their original order.
  ContractedGraph cg;
  cg.buffer_of.assign(bg.buffers.size(), -1);
  for (size_t b = 0; b < bg.buffers.size(); ++b) {
    if (inside_loop(b) >= 0) continue;
    cg.buffer_of[b] = static_cast<int>(cg.graph.buffers.size());
    analysis::Buffer buffer = bg.buffers[b];
    buffer.consumers.clear();
    buffer.producer = -1;
    cg.graph.buffers.push_back(std::move(buffer));
  }
  cg.graph.buffer_of_tensor = bg.buffer_of_tensor;
  for (int& b : cg.graph.buffer_of_tensor) b = b >= 0 ? cg.buffer_of[static_cast<size_t>(b)] : -1;

  // Units as a graph, ordered by their given keys.
  analysis::BufferGraph unit_graph;
  unit_graph.buffers = cg.graph.buffers;
  std::vector<int64_t> keys;
  for (size_t u = 0; u < units.size(); ++u) {
    analysis::Operator op;
    for (int b : units[u].inputs) op.inputs.push_back(cg.buffer_of[static_cast<size_t>(b)]);
    for (int b : units[u].outputs) {
      op.outputs.push_back(cg.buffer_of[static_cast<size_t>(b)]);
      unit_graph.buffers[static_cast<size_t>(cg.buffer_of[static_cast<size_t>(b)])].producer = static_cast<int>(u);
    }
    for (int b : op.inputs) unit_graph.buffers[static_cast<size_t>(b)].consumers.push_back(static_cast<int>(u));
    unit_graph.operators.push_back(std::move(op));
    keys.push_back(units[u].given_key);
  }
  const analysis::Order unit_order = order_by_keys(unit_graph, keys);

  std::vector<int> position_of_unit(units.size());
  for (size_t p = 0; p < unit_order.size(); ++p) position_of_unit[static_cast<size_t>(unit_order[p])] = static_cast<int>(p);
  for (int u : unit_order) {
    const Unit& unit = units[static_cast<size_t>(u)];
    analysis::Operator op = unit_graph.operators[static_cast<size_t>(u)];
    op.workspace_bytes = unit.workspace_bytes;
    op.node = unit.node;
    op.name = unit.name;
    const int index = static_cast<int>(cg.graph.operators.size());
    for (int b : op.outputs) cg.graph.buffers[static_cast<size_t>(b)].producer = index;
    for (int b : op.inputs) cg.graph.buffers[static_cast<size_t>(b)].consumers.push_back(index);
    cg.graph.operators.push_back(std::move(op));
    cg.loop_of.push_back(unit.loop);
  }
  for (analysis::Buffer& buffer : cg.graph.buffers) std::sort(buffer.consumers.begin(), buffer.consumers.end());
  cg.operator_of.resize(n);
  for (size_t op = 0; op < n; ++op) cg.operator_of[op] = position_of_unit[static_cast<size_t>(unit_of_op[op])];
  // An operator outside the loops reads no buffer made inside one, so its
  // options name surviving buffers.
  if (!bg.inplace_options.empty()) {
    cg.graph.inplace_options.resize(cg.graph.operators.size());
    for (size_t op = 0; op < n; ++op) {
      if (loop_of_op[op] >= 0) continue;
      for (analysis::InplaceOption option : analysis::list_inplace_options_of(bg, static_cast<int>(op))) {
        option.input_buffer = cg.buffer_of[static_cast<size_t>(option.input_buffer)];
        cg.graph.inplace_options[static_cast<size_t>(cg.operator_of[op])].push_back(option);
      }
    }
  }
  return cg;
}

analysis::Order expand_order(const ContractedGraph& cg, const std::vector<LoopSummary>& loops,
                             const analysis::Order& order) {
  std::vector<int> original_of(cg.graph.operators.size(), -1);
  for (size_t op = 0; op < cg.operator_of.size(); ++op) {
    const auto contracted = static_cast<size_t>(cg.operator_of[op]);
    if (cg.loop_of[contracted] < 0) original_of[contracted] = static_cast<int>(op);
  }
  analysis::Order expanded;
  for (int op : order) {
    const int loop = cg.loop_of[static_cast<size_t>(op)];
    if (loop < 0) {
      expanded.push_back(original_of[static_cast<size_t>(op)]);
      continue;
    }
    const std::vector<int>& ops = loops[static_cast<size_t>(loop)].operators;
    expanded.insert(expanded.end(), ops.begin(), ops.end());
  }
  return expanded;
}

analysis::InplaceChoices expand_inplace_choices(const ContractedGraph& cg, const analysis::InplaceChoices& choices) {
  if (choices.empty()) return {};
  std::vector<int> original_buffer(cg.graph.buffers.size(), -1);
  for (size_t b = 0; b < cg.buffer_of.size(); ++b) {
    if (cg.buffer_of[b] >= 0) original_buffer[static_cast<size_t>(cg.buffer_of[b])] = static_cast<int>(b);
  }
  analysis::InplaceChoices expanded(cg.operator_of.size(), -1);
  for (size_t op = 0; op < cg.operator_of.size(); ++op) {
    const int chosen = choices[static_cast<size_t>(cg.operator_of[op])];
    if (chosen >= 0) expanded[op] = original_buffer[static_cast<size_t>(chosen)];  // never a loop's: it has no options
  }
  return expanded;
}

analysis::Order contract_order(const analysis::BufferGraph& bg, const ContractedGraph& cg,
                               const analysis::Order& order) {
  TINYFIT_CHECK(order.size() == bg.operators.size()) << "order of " << order.size() << " operators";
  std::vector<int64_t> key(cg.graph.operators.size(), -1);
  for (size_t p = 0; p < order.size(); ++p) {
    int64_t& k = key[static_cast<size_t>(cg.operator_of[static_cast<size_t>(order[p])])];
    k = std::max(k, static_cast<int64_t>(p));  // a loop runs where its last operator ran
  }
  return order_by_keys(cg.graph, key);
}

}  // namespace tinyfit::partition
