#include "devices/recompute_boundary.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "devices/crop_rows.h"

namespace tinyfit::devices {
namespace {

int64_t count_bytes(const ir::Graph& graph, const std::set<ir::TensorId>& tensors) {
  int64_t bytes = 0;
  for (ir::TensorId t : tensors) bytes += graph.tensor(t).size_bytes();
  return bytes;
}

class Recomputer {
 public:
  Recomputer(const ir::Graph& graph, int head_nodes)
      : graph_(graph), head_nodes_(head_nodes), producers_(graph.compute_producers()) {
    const std::vector<ir::TensorId> boundary = find_head_boundary(graph, head_nodes);
    boundary_.insert(boundary.begin(), boundary.end());
    outputs_.insert(graph.outputs.begin(), graph.outputs.end());
    for (int n = 0; n < head_nodes; ++n) {
      const ir::Node& node = graph.nodes[static_cast<size_t>(n)];
      read_by_head_.insert(node.inputs.begin(), node.inputs.end());
    }
  }

  const std::set<ir::TensorId>& boundary() const { return boundary_; }

  // The set recomputing t that lowers the bytes crossing the cut the most,
  // ascending; nullopt when none lowers them.
  std::optional<std::vector<ir::NodeId>> choose_set(ir::TensorId t) const {
    const ir::NodeId producer = producers_[static_cast<size_t>(t)];
    if (producer < 0 || producer >= head_nodes_ || !read_by_head_.count(t)) return std::nullopt;
    std::set<ir::NodeId> set = {producer};
    std::optional<std::vector<ir::NodeId>> best;
    int64_t best_delta = 0;
    while (static_cast<int>(set.size()) <= kMaxRecomputed) {
      std::set<ir::TensorId> reads = read_outside(set);
      std::set<ir::TensorId> added;  // read by the copies, not crossing yet
      bool valid = true;
      for (ir::TensorId r : reads) {
        if (boundary_.count(r)) continue;
        const ir::NodeId p = producers_[static_cast<size_t>(r)];
        if (p < 0 || p >= head_nodes_) valid = false;  // a graph input the cut does not hand on
        added.insert(r);
      }
      std::set<ir::TensorId> dropped;  // crossing now, made by the copies instead
      for (ir::NodeId n : set) {
        for (ir::TensorId out : graph_.nodes[static_cast<size_t>(n)].outputs) {
          if (outputs_.count(out)) return best;  // a graph output stays where it is made
          if (boundary_.count(out)) dropped.insert(out);
        }
      }
      const int64_t delta = count_bytes(graph_, added) - count_bytes(graph_, dropped);
      if (valid && delta < best_delta) {
        best_delta = delta;
        best = std::vector<ir::NodeId>(set.begin(), set.end());
      }
      // Walk back through the largest tensor the set reads that the head makes.
      std::optional<ir::TensorId> largest;
      for (ir::TensorId r : added) {
        const ir::NodeId p = producers_[static_cast<size_t>(r)];
        if (p < 0 || p >= head_nodes_) continue;
        if (!largest || graph_.tensor(r).size_bytes() > graph_.tensor(*largest).size_bytes()) largest = r;
      }
      if (!largest) break;
      set.insert(producers_[static_cast<size_t>(*largest)]);
    }
    return best;
  }

  // The graph with `set`'s copies after the head, the tail reading them.
  ir::Graph apply(const std::vector<ir::NodeId>& set) const {
    ir::Graph result = graph_;
    result.nodes.assign(graph_.nodes.begin(), graph_.nodes.begin() + head_nodes_);
    std::map<ir::TensorId, ir::TensorId> copies;
    auto rename = [&](ir::TensorId& t) {
      auto it = copies.find(t);
      if (t != ir::kNoTensor && it != copies.end()) t = it->second;
    };
    // A stage after one that recomputed the same operator (the graph holds
    // its "/recompute" copy already) numbers its copy: "/recompute2", ...
    std::set<std::string> names;
    for (const ir::Node& node : graph_.nodes) names.insert(node.name);
    for (const ir::Tensor& tensor : graph_.tensors) names.insert(tensor.name);
    auto fresh = [&](const std::string& base) {
      std::string name = base + "/recompute";
      for (int k = 2; names.count(name) != 0; ++k) name = base + "/recompute" + std::to_string(k);
      names.insert(name);
      return name;
    };
    for (ir::NodeId n : set) {
      ir::Node copy = graph_.nodes[static_cast<size_t>(n)];
      copy.name = fresh(copy.name);
      copy.synthesized = true;
      copy.source_nodes.clear();
      for (ir::TensorId& t : copy.inputs) rename(t);
      for (ir::TensorId& t : copy.outputs) {
        ir::Tensor tensor = graph_.tensor(t);
        tensor.name = fresh(tensor.name);
        const ir::TensorId id = result.add_tensor(std::move(tensor));
        copies[t] = id;
        t = id;
      }
      result.nodes.push_back(std::move(copy));
    }
    for (size_t n = static_cast<size_t>(head_nodes_); n < graph_.nodes.size(); ++n) {
      ir::Node node = graph_.nodes[n];
      for (ir::TensorId& t : node.inputs) rename(t);
      result.nodes.push_back(std::move(node));
    }
    return result;
  }

 private:
  // The non-constant tensors the set's operators read that it does not make.
  std::set<ir::TensorId> read_outside(const std::set<ir::NodeId>& set) const {
    std::set<ir::TensorId> made;
    for (ir::NodeId n : set) {
      const ir::Node& node = graph_.nodes[static_cast<size_t>(n)];
      made.insert(node.outputs.begin(), node.outputs.end());
    }
    std::set<ir::TensorId> reads;
    for (ir::NodeId n : set) {
      const ir::Node& node = graph_.nodes[static_cast<size_t>(n)];
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (!graph_.has_input(node, i) || graph_.input_tensor(node, i).is_constant) continue;
        if (!made.count(node.inputs[i])) reads.insert(node.inputs[i]);
      }
    }
    return reads;
  }

  const ir::Graph& graph_;
  int head_nodes_;
  std::vector<ir::NodeId> producers_;
  std::set<ir::TensorId> boundary_;
  std::set<ir::TensorId> outputs_;
  std::set<ir::TensorId> read_by_head_;
};

}  // namespace

bool boundary_fits(const ir::Graph& graph, int head_nodes, int64_t gather_bytes) {
  int64_t bytes = 0;
  for (ir::TensorId t : find_head_boundary(graph, head_nodes)) bytes += graph.tensor(t).size_bytes();
  return bytes <= gather_bytes;
}

ir::Graph recompute_boundary(const ir::Graph& graph, int head_nodes, int64_t gather_bytes) {
  ir::Graph result = graph;
  for (;;) {
    const Recomputer recomputer(result, head_nodes);
    if (count_bytes(result, recomputer.boundary()) <= gather_bytes) return result;
    std::vector<ir::TensorId> largest_first(recomputer.boundary().begin(), recomputer.boundary().end());
    std::stable_sort(largest_first.begin(), largest_first.end(), [&](ir::TensorId a, ir::TensorId b) {
      return result.tensor(a).size_bytes() > result.tensor(b).size_bytes();
    });
    std::optional<std::vector<ir::NodeId>> set;
    for (ir::TensorId t : largest_first) {
      set = recomputer.choose_set(t);
      if (set) break;
    }
    if (!set) return result;
    result = recomputer.apply(*set);
  }
}

}  // namespace tinyfit::devices
