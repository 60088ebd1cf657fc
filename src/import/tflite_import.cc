// The TFLite importer's table of contents: verify the flatbuffer, check every
// operator is supported (so an unsupported one is the first thing reported),
// convert tensors, convert operators in the model's order.
#include "import/tflite_import.h"

#include <set>

#include "import/tflite_import_buffer.h"
#include "import/tflite_model_file.h"
#include "import/tflite_ops.h"
#include "import/tflite_tensors.h"

namespace tinyfit::import {
namespace {

// One TFLite operator before conversion: its resolved code, names and
// range-checked tensor indices.
struct OperatorPlan {
  const tflite::Operator* op = nullptr;
  tflite::BuiltinOperator code = tflite::BuiltinOperator::ADD;
  std::string op_name;    // TFLite's name: "CONV_2D", "SVDF", a custom code
  std::string node_name;  // unique in the graph
  std::vector<ir::TensorId> inputs;
  std::vector<ir::TensorId> outputs;
};

tl::unexpected<Diag> fail_at(const OperatorPlan& plan, std::string message) {
  return fail_at_node(plan.node_name, plan.op_name, std::move(message));
}

Result<std::vector<ir::TensorId>> check_tensor_indices(const flatbuffers::Vector<int32_t>* indices,
                                                       size_t tensor_count, bool allow_absent,
                                                       std::string_view what) {
  std::vector<ir::TensorId> out;
  if (!indices) return out;
  for (int32_t index : *indices) {
    if (allow_absent && index == -1) {
      out.push_back(ir::kNoTensor);
    } else if (index < 0 || static_cast<size_t>(index) >= tensor_count) {
      return fail(std::string(what) + " tensor index " + std::to_string(index) + " out of range (subgraph has " +
                  std::to_string(tensor_count) + " tensors)");
    } else {
      out.push_back(index);
    }
  }
  return out;
}

// Node name = the name of the operator's first output tensor (what TFLite
// tools show), "tensor<index>" when that tensor is unnamed (as tensors are
// named on import); repeats get "_1", "_2", ... in operator order.
std::string choose_node_name(const tflite::SubGraph& subgraph, const std::vector<ir::TensorId>& outputs,
                             size_t op_index, std::set<std::string>& used) {
  std::string base;
  if (!outputs.empty()) {
    const tflite::Tensor* t = subgraph.tensors()->Get(static_cast<flatbuffers::uoffset_t>(outputs[0]));
    base = t && t->name() && t->name()->size() ? t->name()->str() : "tensor" + std::to_string(outputs[0]);
  }
  if (base.empty()) base = "op" + std::to_string(op_index);
  std::string name = base;
  for (int n = 1; !used.insert(name).second; ++n) name = base + "_" + std::to_string(n);
  return name;
}

Result<std::vector<OperatorPlan>> plan_operators(const tflite::Model& model, const tflite::SubGraph& subgraph) {
  const size_t tensor_count = subgraph.tensors() ? subgraph.tensors()->size() : 0;
  const size_t code_count = model.operator_codes() ? model.operator_codes()->size() : 0;
  std::vector<OperatorPlan> plans;
  std::set<std::string> used_names;
  if (!subgraph.operators()) return plans;
  for (flatbuffers::uoffset_t i = 0; i < subgraph.operators()->size(); ++i) {
    OperatorPlan plan;
    plan.op = subgraph.operators()->Get(i);
    if (!plan.op) return fail("operator " + std::to_string(i) + " is missing");
    TINYFIT_ASSIGN_OR_RETURN(plan.outputs, check_tensor_indices(plan.op->outputs(), tensor_count, false, "output"));
    plan.node_name = choose_node_name(subgraph, plan.outputs, i, used_names);
    const uint32_t opcode = plan.op->opcode_index();
    const tflite::OperatorCode* code = opcode < code_count ? model.operator_codes()->Get(opcode) : nullptr;
    if (!code) {
      return fail_at_node(plan.node_name, "", "opcode index " + std::to_string(opcode) +
                                                  " out of range (model has " + std::to_string(code_count) + " operator codes)");
    }
    plan.code = resolve_builtin_code(*code);
    plan.op_name = name_tflite_operator(*code);
    auto inputs = check_tensor_indices(plan.op->inputs(), tensor_count, true, "input");
    if (!inputs) return fail_at(plan, inputs.error().message);
    plan.inputs = std::move(*inputs);
    if (!tflite_op_table().contains(plan.code)) {
      const bool custom = plan.code == tflite::BuiltinOperator::CUSTOM;
      return fail_at(plan, std::string(custom ? "unsupported custom operator '" : "unsupported operator '") +
                               plan.op_name + "'");
    }
    plans.push_back(std::move(plan));
  }
  return plans;
}

// TFLite shapes are static: an --input-shape may only restate them.
Status check_input_shapes(const ir::Graph& graph, const ImportOptions& options) {
  for (const auto& [name, shape] : options.input_shapes) {
    bool found = false;
    for (ir::TensorId id : graph.inputs) {
      const ir::Tensor& t = graph.tensor(id);
      if (t.name != name) continue;
      found = true;
      if (t.shape != shape) {
        return fail("input '" + name + "' is " + ir::format_shape(t.shape) + "; TFLite models have static shapes, " +
                    "so --input-shape " + ir::format_shape(shape) + " cannot apply");
      }
    }
    if (!found) return fail("--input-shape names '" + name + "', which is not a model input");
  }
  return {};
}

// TFLite does not require unique tensor names (and helpers derive theirs from
// another tensor's): a repeated name gets "_1", "_2", ... as node names do
// (choose_node_name). The model's inputs
// and outputs keep theirs (the C API names them), then the others in tensor
// order.
void make_tensor_names_unique(ir::Graph& graph) {
  std::vector<ir::TensorId> order(graph.inputs.begin(), graph.inputs.end());
  order.insert(order.end(), graph.outputs.begin(), graph.outputs.end());
  for (ir::TensorId id = 0; id < static_cast<ir::TensorId>(graph.tensors.size()); ++id) order.push_back(id);
  std::set<std::string> taken;
  for (const ir::Tensor& t : graph.tensors) taken.insert(t.name);
  std::set<std::string> kept;
  std::vector<bool> done(graph.tensors.size(), false);
  for (ir::TensorId id : order) {
    if (done[static_cast<size_t>(id)]) continue;
    done[static_cast<size_t>(id)] = true;
    ir::Tensor& t = graph.tensor(id);
    if (kept.insert(t.name).second) continue;
    const std::string base = t.name;
    for (int k = 1; taken.count(t.name); ++k) t.name = base + "_" + std::to_string(k);
    taken.insert(t.name);
    kept.insert(t.name);
  }
}

Result<ir::Graph> convert_model(std::span<const uint8_t> bytes, const ImportOptions& options) {
  TINYFIT_ASSIGN_OR_RETURN(const tflite::Model* model, verify_tflite_buffer(bytes));
  if (model->version() != 3) {
    return fail("TFLite schema version " + std::to_string(model->version()) + ", expected 3");
  }
  if (!model->subgraphs() || model->subgraphs()->size() == 0 || !model->subgraphs()->Get(0)) {
    return fail("model has no subgraph");
  }
  const tflite::SubGraph& subgraph = *model->subgraphs()->Get(0);
  TINYFIT_ASSIGN_OR_RETURN(std::vector<OperatorPlan> plans, plan_operators(*model, subgraph));

  ir::Graph graph;
  if (subgraph.name() && subgraph.name()->size()) graph.name = subgraph.name()->str();
  TINYFIT_ASSIGN_OR_RETURN(graph.tensors, convert_tflite_tensors(*model, subgraph, bytes));
  TINYFIT_ASSIGN_OR_RETURN(graph.inputs, check_tensor_indices(subgraph.inputs(), graph.tensors.size(), false, "graph input"));
  TINYFIT_ASSIGN_OR_RETURN(graph.outputs,
                           check_tensor_indices(subgraph.outputs(), graph.tensors.size(), false, "graph output"));
  TINYFIT_RETURN_IF_ERROR(check_input_shapes(graph, options));

  std::map<ir::TensorId, std::vector<std::string>> folded_names;
  std::set<std::string> node_names;
  for (const OperatorPlan& plan : plans) node_names.insert(plan.node_name);
  for (OperatorPlan& plan : plans) {
    TfliteOpContext ctx{*plan.op, graph, plan.node_name, plan.inputs, plan.outputs, folded_names, node_names};
    Status converted = tflite_op_table().at(plan.code)(ctx);
    if (!converted) return fail_at(plan, converted.error().message);
  }
  graph.remove_unused_tensors();
  make_tensor_names_unique(graph);
  return graph;
}

std::string name_model(const std::string& source) {
  const size_t slash = source.find_last_of('/');
  std::string name = slash == std::string::npos ? source : source.substr(slash + 1);
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

}  // namespace

Result<ir::Graph> import_tflite_buffer(std::span<const uint8_t> bytes, const std::string& source,
                                       const ImportOptions& options) {
  auto graph = convert_model(bytes, options);
  if (!graph) {
    Diag d = std::move(graph).error();
    if (d.file.empty()) d.file = source;
    return tl::unexpected(std::move(d));
  }
  if (graph->name.empty()) graph->name = name_model(source);
  graph->source_path = source;
  return graph;
}

Result<ir::Graph> import_tflite_file(const std::string& path, const ImportOptions& options) {
  auto bytes = read_tflite_bytes(path);
  if (!bytes) {
    Diag d = std::move(bytes).error();
    d.file = path;
    return tl::unexpected(std::move(d));
  }
  return import_tflite_buffer(*bytes, path, options);
}

}  // namespace tinyfit::import
