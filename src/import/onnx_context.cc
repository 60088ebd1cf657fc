// The importer's context: values by ONNX name, node emission, messages.
#include <onnx/onnx_pb.h>

#include "import/onnx_context.h"
#include "import/graph_rewrite.h"
#include "ir/op_decl.h"

namespace tinyfit::import::onnx_detail {

void Context::reserve_model_node_names(const std::vector<std::string>& names) {
  model_node_names_.insert(names.begin(), names.end());
}

void Context::index_model_graph(const onnx::GraphProto& model_graph) {
  for (const auto& node : model_graph.node()) {
    for (const auto& in : node.input()) {
      if (!in.empty()) readers_[in].push_back(&node);
    }
    for (const auto& out : node.output()) {
      if (!out.empty()) producers_.emplace(out, &node);
    }
  }
  for (const auto& out : model_graph.output()) model_outputs_.insert(out.name());
}

const std::vector<const onnx::NodeProto*>& Context::readers_of(const std::string& value) const {
  static const std::vector<const onnx::NodeProto*> kNone;
  auto it = readers_.find(value);
  return it == readers_.end() ? kNone : it->second;
}

const onnx::NodeProto* Context::producer_of(const std::string& value) const {
  auto it = producers_.find(value);
  return it == producers_.end() ? nullptr : it->second;
}

void Context::set_current(const onnx::NodeProto* node, std::string name) {
  node_ = node;
  node_name_ = std::move(name);
}

tl::unexpected<Diag> Context::error(std::string message) const {
  return error_at(node_name_, node_ ? node_->op_type() : std::string(), std::move(message));
}

tl::unexpected<Diag> Context::error_at(const std::string& node, const std::string& op, std::string message) const {
  return tl::unexpected<Diag>(Diag{ExitCode::kBadInput, source_, node, op, std::move(message)});
}

bool Context::has_input(int i) const {
  return i >= 0 && i < node_->input_size() && !node_->input(i).empty();
}

Result<const Value*> Context::input(int i) const {
  if (!has_input(i)) return error("missing input " + std::to_string(i));
  auto it = values.find(node_->input(i));
  if (it == values.end()) return error("input '" + node_->input(i) + "' is not defined");
  return &it->second;
}

Result<const Value*> Context::activation_input(int i) const {
  TINYFIT_ASSIGN_OR_RETURN(const Value* v, input(i));
  if (v->is_constant) {
    return error("input '" + node_->input(i) + "' is a constant; only activations are supported here");
  }
  return v;
}

Result<std::shared_ptr<const ConstValue>> Context::constant_input(int i) const {
  TINYFIT_ASSIGN_OR_RETURN(const Value* v, input(i));
  if (!v->is_constant) {
    return error("input '" + node_->input(i) + "' must be a constant (an initializer or foldable subgraph)");
  }
  return v->constant;
}

Status Context::set_output(int i, Value value) {
  if (i >= node_->output_size() || node_->output(i).empty()) return {};  // unused optional output
  const std::string& name = node_->output(i);
  if (values.count(name)) return error("output '" + name + "' has more than one producer");
  values.emplace(name, std::move(value));
  return {};
}

Status Context::set_constant_output(int i, ConstValue value) {
  Value v;
  v.is_constant = true;
  v.constant = std::make_shared<const ConstValue>(std::move(value));
  // A folded constant node is listed with the first operator that uses it.
  for (const auto& in : node_->input()) {
    auto it = values.find(in);
    if (it == values.end()) continue;
    v.pending_names.insert(v.pending_names.end(), it->second.pending_names.begin(), it->second.pending_names.end());
  }
  v.pending_names.push_back(node_name_);
  return set_output(i, std::move(v));
}

Status Context::forward_input_to_output(int in, int out) {
  TINYFIT_ASSIGN_OR_RETURN(const Value* src, input(in));
  Value copy = *src;
  copy.pending_names.push_back(node_name_);
  return set_output(out, std::move(copy));
}

namespace {


}  // namespace

ir::TensorId Context::add_activation(const std::string& name, ir::DType dtype, std::optional<ir::QuantParams> quant) {
  ir::Tensor t;
  t.name = first_free_name(tensor_names_, name);
  tensor_names_.insert(t.name);
  t.dtype = dtype;
  t.quant = std::move(quant);
  return graph.add_tensor(std::move(t));
}

ir::TensorId Context::add_constant(const std::string& name, const ConstValue& value,
                                   std::optional<ir::QuantParams> quant) {
  ir::Tensor t;
  t.name = first_free_name(tensor_names_, name);
  tensor_names_.insert(t.name);
  t.dtype = value.dtype;
  t.shape = value.shape;
  t.is_constant = true;
  t.data = value.data;
  t.quant = std::move(quant);
  return graph.add_tensor(std::move(t));
}

void Context::rename_tensor(ir::TensorId id, const std::string& name) {
  ir::Tensor& target = graph.tensor(id);
  if (target.name == name) return;
  for (ir::Tensor& other : graph.tensors) {
    if (&other != &target && other.name == name) {
      other.name = first_free_name(tensor_names_, name);
      tensor_names_.insert(other.name);
    }
  }
  target.name = name;
  tensor_names_.insert(name);
}

std::vector<std::string> Context::claim_unlisted(const std::vector<std::string>& names) {
  std::vector<std::string> claimed;
  for (const auto& n : names) {
    if (listed_names_.insert(n).second) claimed.push_back(n);
  }
  return claimed;
}

std::string Context::unique_node_name(const std::string& base) {
  std::set<std::string> taken = node_names_;
  taken.insert(model_node_names_.begin(), model_node_names_.end());
  const std::string name = first_free_name(taken, base);
  node_names_.insert(name);
  return name;
}

Result<ir::NodeId> Context::emit(ir::OpType op, std::vector<ir::TensorId> inputs, std::vector<ir::TensorId> outputs,
                                 ir::OpAttrs attrs, const std::string& role) {
  ir::Node node;
  // The ONNX node itself, unless it was already emitted (then this one is a
  // helper too, so its name is listed once).
  const bool model_node = role.empty() && !node_name_.empty() && !listed_names_.count(node_name_) &&
                          !node_names_.count(node_name_);
  if (model_node) {
    node.name = node_name_;
    node_names_.insert(node.name);
    // Folded nodes feeding its inputs ran before it.
    if (node_) {
      for (const auto& in : node_->input()) {
        auto it = values.find(in);
        if (it == values.end()) continue;
        auto claimed = claim_unlisted(it->second.pending_names);
        node.source_nodes.insert(node.source_nodes.end(), claimed.begin(), claimed.end());
        it->second.pending_names.clear();
      }
    }
    listed_names_.insert(node.name);
    node.source_nodes.push_back(node.name);
  } else {
    node.synthesized = true;
    node.name = unique_node_name(node_name_ + "/" + (role.empty() ? std::string("helper") : role));
  }
  node.op = op;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  node.attrs = std::move(attrs);
  const ir::NodeId id = graph.add_node(std::move(node));
  ir::Node& added = graph.nodes.back();
  auto shapes = ir::op_decl(op).infer_shapes(graph, added);
  if (!shapes) return error(shapes.error().message);
  if (shapes->size() != added.outputs.size()) return error("operator produces an unexpected number of outputs");
  for (size_t i = 0; i < shapes->size(); ++i) graph.tensor(added.outputs[i]).shape = (*shapes)[i];
  return id;
}

}  // namespace tinyfit::import::onnx_detail
