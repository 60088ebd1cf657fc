#include "plan/verify_plan_dataflow.h"

#include "ir/op_decl.h"
#include "plan/plan_walk.h"

namespace tinyfit::plan {
namespace {

// Calls fn(buffer element, index in the tensor) for every element of the
// view instance; the tensor's extents are the view's (plan.h View::shape).
template <typename Fn>
void for_each_element(const ViewInstance& instance, const ir::Shape& tensor_shape, Fn&& fn) {
  if (instance.count_elements() == 0) return;
  const ir::Shape tensor_strides = ir::compute_strides(tensor_shape);
  const int rank = instance.rank();
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
  while (true) {
    int64_t position = instance.offset_elements, index = 0;
    for (size_t a = 0; a < coord.size(); ++a) {
      position += coord[a] * instance.strides[a];
      index += (instance.origin[a] + coord[a]) * tensor_strides[a];
    }
    fn(position, index);
    int a = rank - 1;
    for (; a >= 0; --a) {
      const auto axis = static_cast<size_t>(a);
      if (++coord[axis] < instance.shape[axis]) break;
      coord[axis] = 0;
    }
    if (a < 0) return;
  }
}

bool sweeps_rows_or_cols(const View& view) {
  for (const Sweep& sweep : view.sweeps) {
    if (view.rank() == 4 && (sweep.axis == 1 || sweep.axis == 2)) return true;
  }
  return false;
}

constexpr int kTagIndexBits = 40;

// The element index a tag holds (make_tag's low bits).
int64_t tag_index(int64_t tag) { return tag & ((int64_t{1} << kTagIndexBits) - 1); }

}  // namespace

// Who wrote a tagged element: a node's name, or the graph's inputs.
std::string DataflowChecker::describe_tag_producer(int64_t tag) const {
  const ir::NodeId producer = static_cast<ir::NodeId>((tag >> kTagIndexBits) - 2);
  if (producer < 0) return "a graph input";
  return "node '" + graph_.nodes[static_cast<size_t>(producer)].name + "'";
}

tl::unexpected<Diag> fail_plan(std::string problem) { return fail("plan: " + problem, ExitCode::kInternal); }

std::string describe_call(const ir::Graph& graph, const KernelCall& call) {
  if (call.node < 0) return std::string("call '") + std::string(call_mode_name(call.mode)) + "'";
  return "call of node '" + graph.nodes[static_cast<size_t>(call.node)].name + "' (" +
         std::string(call_mode_name(call.mode)) + ")";
}

DataflowChecker::DataflowChecker(const ir::Graph& graph, const Plan& plan)
    : graph_(graph),
      plan_(plan),
      producers_(graph.compute_producers()),
      written_(plan.buffers.size(), false),
      tracked_(plan.buffers.size(), false),
      tags_(plan.buffers.size()),
      partial_home_(plan.buffers.size(), nullptr) {
  // Home loops of partial buffers: the longest common prefix of their nests.
  std::vector<std::vector<const Loop*>> home(plan.buffers.size());
  std::vector<bool> seen(plan.buffers.size(), false);
  const Status walked = walk_calls(plan.steps, [&](const KernelCall& call, LoopNest nest) -> Status {
    for (const auto* views : {&call.inputs, &call.outputs}) {
      for (const View& view : *views) {
        const auto b = static_cast<size_t>(view.buffer);
        if (sweeps_rows_or_cols(view)) tracked_[b] = true;
        if (!seen[b]) {
          home[b].assign(nest.begin(), nest.end());
          seen[b] = true;
          continue;
        }
        size_t common = 0;
        while (common < home[b].size() && common < nest.size() && home[b][common] == nest[common]) ++common;
        home[b].resize(common);
      }
    }
    return {};
  });
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    if (plan.buffers[b].role == BufferRole::kPartial && !home[b].empty()) partial_home_[b] = home[b].back();
    if (tracked_[b]) {
      tags_[b].assign(static_cast<size_t>(plan.buffers[b].bytes / ir::dtype_size_bytes(plan.buffers[b].dtype)), 0);
    }
  }
  for (size_t i = 0; i < plan.inputs.size() && i < graph.inputs.size(); ++i) {
    const auto b = static_cast<size_t>(plan.inputs[i]);
    written_[b] = true;
    const ir::Tensor& tensor = graph.tensor(graph.inputs[i]);
    int64_t elements = 1;
    for (int64_t extent : tensor.shape) elements *= extent;
    for (int64_t e = 0; e < elements && tracked_[b] && static_cast<size_t>(e) < tags_[b].size(); ++e) {
      tags_[b][static_cast<size_t>(e)] = make_tag(-1, e);
    }
  }
}

int64_t DataflowChecker::make_tag(ir::NodeId producer, int64_t index) {
  return (static_cast<int64_t>(producer) + 2) << kTagIndexBits | index;
}

ir::NodeId DataflowChecker::find_data_producer(ir::TensorId tensor) const {
  ir::NodeId producer = producers_.at(static_cast<size_t>(tensor));
  while (producer >= 0) {
    const ir::Node& node = graph_.nodes[static_cast<size_t>(producer)];
    if (!ir::op_decl(node.op).is_alias) break;
    producer = producers_.at(static_cast<size_t>(node.inputs.at(0)));
  }
  return producer;
}

void DataflowChecker::start_iteration(std::span<const LoopChunk> nest) {
  const Loop* loop = nest.back().loop;
  for (size_t b = 0; b < plan_.buffers.size(); ++b) {
    if (partial_home_[b] != loop) continue;
    written_[b] = false;
    std::fill(tags_[b].begin(), tags_[b].end(), 0);
  }
}

Status DataflowChecker::read_elements(const KernelCall& call, const View& view, const ViewInstance& instance,
                                      ir::NodeId producer) {
  const auto b = static_cast<size_t>(view.buffer);
  const std::string& name = plan_.buffers[b].name;
  if (!tracked_[b]) {
    if (!written_[b]) return fail_plan(describe_call(graph_, call) + " reads '" + name + "' before anything wrote it");
    return {};
  }
  int64_t wrong_position = -1, wrong_index = 0;
  for_each_element(instance, view.shape, [&](int64_t position, int64_t index) {
    if (wrong_position < 0 && tags_[b][static_cast<size_t>(position)] != make_tag(producer, index)) {
      wrong_position = position;
      wrong_index = index;
    }
  });
  if (wrong_position < 0) return {};
  const int64_t tag = tags_[b][static_cast<size_t>(wrong_position)];
  const std::string held = tag == 0 ? "nothing"
                                    : "element " + std::to_string(tag_index(tag)) +
                                          " of " + describe_tag_producer(tag);
  return fail_plan(describe_call(graph_, call) + " reads element " + std::to_string(wrong_index) + " of '" + name +
                   "' at position " + std::to_string(wrong_position) + ", which holds " + held);
}

void DataflowChecker::write_elements(const ViewInstance& instance, const View& view, ir::NodeId producer) {
  const auto b = static_cast<size_t>(view.buffer);
  written_[b] = true;
  if (!tracked_[b]) return;
  for_each_element(instance, view.shape, [&](int64_t position, int64_t index) {
    tags_[b][static_cast<size_t>(position)] = make_tag(producer, index);
  });
}

// A copy moves tags: every element it reads must hold the element its input
// view claims (whoever wrote it), and lands where its output view claims the
// same element; the reads happen before the writes (BlockConcat's shift
// within one buffer).
Status DataflowChecker::copy_elements(const KernelCall& call, std::span<const LoopChunk> nest) {
  const View& from = call.inputs.at(0);
  const View& to = call.outputs.at(0);
  const ViewInstance source = resolve_view(from, nest);
  const ViewInstance target = resolve_view(to, nest);
  const auto fb = static_cast<size_t>(from.buffer), tb = static_cast<size_t>(to.buffer);
  if (!tracked_[fb] || !tracked_[tb]) {
    if (!written_[fb]) {
      return fail_plan(describe_call(graph_, call) + " reads '" + plan_.buffers[fb].name + "' before anything wrote it");
    }
    written_[tb] = true;
    if (tracked_[tb]) std::fill(tags_[tb].begin(), tags_[tb].end(), 0);  // untracked data: unknown elements
    return {};
  }
  std::vector<int64_t> moved;
  Status status;
  for_each_element(source, from.shape, [&](int64_t position, int64_t index) {
    const int64_t tag = tags_[fb][static_cast<size_t>(position)];
    if (status && (tag == 0 || tag_index(tag) != index)) {
      status = fail_plan(describe_call(graph_, call) + " copies element " + std::to_string(index) + " of '" +
                         plan_.buffers[fb].name + "' from position " + std::to_string(position) +
                         (tag == 0 ? ", which holds nothing" : ", which holds another element"));
    }
    moved.push_back(tag);
  });
  TINYFIT_RETURN_IF_ERROR(status);
  size_t next = 0;
  for_each_element(target, to.shape, [&](int64_t position, int64_t index) {
    const int64_t tag = next < moved.size() ? moved[next++] : 0;
    if (status && tag_index(tag) != index) {
      status = fail_plan(describe_call(graph_, call) + " puts element " +
                         std::to_string(tag_index(tag)) + " where its output view shows " +
                         std::to_string(index));
    }
    tags_[tb][static_cast<size_t>(position)] = tag;
  });
  written_[tb] = true;
  return status;
}

Status DataflowChecker::check_call(const KernelCall& call, std::span<const LoopChunk> nest) {
  if (call.mode == CallMode::kCopy) return copy_elements(call, nest);
  const ir::Node& node = graph_.nodes[static_cast<size_t>(call.node)];
  // Views follow the node's activation inputs in order (plan.h KernelCall);
  // kAccumulate / kFinalize views are accumulators, held by the node itself.
  std::vector<ir::NodeId> input_producers;
  for (ir::TensorId t : node.inputs) {
    if (t != ir::kNoTensor && !graph_.tensor(t).is_constant) input_producers.push_back(find_data_producer(t));
  }
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const bool accumulator = call.mode == CallMode::kFinalize && i + 1 == call.inputs.size();
    const ir::NodeId producer = accumulator || i >= input_producers.size() ? call.node : input_producers[i];
    TINYFIT_RETURN_IF_ERROR(read_elements(call, call.inputs[i], resolve_view(call.inputs[i], nest), producer));
  }
  // A fused call (an inverted bottleneck) writes its last node's data.
  const ir::NodeId writer = call.fused.empty() ? call.node : call.fused.back();
  for (const View& view : call.outputs) write_elements(resolve_view(view, nest), view, writer);
  return {};
}

Status DataflowChecker::check_outputs() const {
  for (size_t o = 0; o < plan_.outputs.size(); ++o) {
    const auto b = static_cast<size_t>(plan_.outputs[o]);
    if (!written_[b]) return fail_plan("model output '" + plan_.buffers[b].name + "' is never written");
    bool complete = true;
    if (tracked_[b] && o < graph_.outputs.size()) {
      const ir::TensorId t = graph_.outputs[o];
      const int64_t producer = find_data_producer(t);
      ViewInstance whole;
      whole.shape = graph_.tensor(t).shape;
      whole.strides = ir::compute_strides(whole.shape);
      whole.origin.assign(whole.shape.size(), 0);
      for_each_element(whole, whole.shape, [&](int64_t position, int64_t index) {
        if (static_cast<size_t>(position) >= tags_[b].size() ||
            tags_[b][static_cast<size_t>(position)] != make_tag(static_cast<ir::NodeId>(producer), index)) {
          complete = false;
        }
      });
    }
    if (!complete) return fail_plan("model output '" + plan_.buffers[b].name + "' is not written whole");
  }
  return {};
}

}  // namespace tinyfit::plan
