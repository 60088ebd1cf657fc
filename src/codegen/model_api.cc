#include "codegen/model_api.h"

#include <sstream>

#include "codegen/c_source.h"
#include "support/diag.h"

namespace tinyfit::codegen {
namespace {

ModelIoTensor locate(const ir::Graph& graph, const plan::Plan& plan, size_t index, ir::TensorId tensor_id,
                     plan::BufferId buffer_id, std::string macro, std::string parameter) {
  const ir::Tensor& tensor = graph.tensor(tensor_id);
  TINYFIT_CHECK(buffer_id >= 0 && static_cast<size_t>(buffer_id) < plan.buffers.size())
      << "model tensor '" << tensor.name << "' has no plan buffer";
  const plan::PlanBuffer& buffer = plan.buffers[static_cast<size_t>(buffer_id)];
  TINYFIT_CHECK(buffer.offset >= 0 && buffer.offset + tensor.size_bytes() <= plan.arena_bytes)
      << "model tensor '" << tensor.name << "' is not inside the arena (offset " << buffer.offset << ")";
  return {index, std::move(macro), std::move(parameter), &tensor, buffer.offset};
}

// The element type every tensor shares, or "void".
std::string find_common_type(const std::vector<ModelIoTensor>& tensors) {
  if (tensors.empty()) return "void";
  const ir::DType dtype = tensors.front().tensor->dtype;
  for (const ModelIoTensor& t : tensors) {
    if (t.tensor->dtype != dtype) return "void";
  }
  return std::string(c_element_type(dtype));
}

// "  switch (index) {\n    case 0: return (T*)(arena + 64);\n ...": the
// pointer of each tensor by index, null for any other index.
std::string define_accessor(const std::string& declaration, const std::string& pointer_type,
                            const std::vector<ModelIoTensor>& tensors, const std::string& arena_symbol) {
  std::ostringstream out;
  out << declaration.substr(0, declaration.size() - 1) << " {\n  switch (index) {\n";
  for (size_t i = 0; i < tensors.size(); ++i) {
    out << "    case " << tensors[i].index << ": return (" << pointer_type << ")(" << arena_symbol << " + " << tensors[i].arena_offset
        << ");\n";
  }
  out << "    default: return 0;\n  }\n}\n";
  return out.str();
}

}  // namespace

ModelApi describe_model_api(const ir::Graph& graph, const plan::Plan& plan, const std::string& prefix) {
  TINYFIT_CHECK(plan.inputs.size() == graph.inputs.size() && plan.outputs.size() == graph.outputs.size())
      << "plan has " << plan.inputs.size() << " inputs and " << plan.outputs.size() << " outputs for a graph of "
      << graph.inputs.size() << " and " << graph.outputs.size();
  ModelApi api;
  api.prefix = prefix;
  const std::string upper = make_macro_name(prefix);
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    if (plan.inputs[i] < 0) continue;  // on another device
    api.inputs.push_back(locate(graph, plan, i, graph.inputs[i], plan.inputs[i], upper + "_INPUT" + std::to_string(i),
                                "input" + std::to_string(i)));
  }
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    if (plan.outputs[i] < 0) continue;
    api.outputs.push_back(locate(graph, plan, i, graph.outputs[i], plan.outputs[i],
                                 upper + "_OUTPUT" + std::to_string(i), "output" + std::to_string(i)));
  }
  api.input_type = find_common_type(api.inputs);
  api.output_type = find_common_type(api.outputs);
  return api;
}

ModelApi describe_device_api(const std::vector<GraphPlan>& plans, const std::string& prefix) {
  ModelApi api;
  api.prefix = prefix;
  for (const GraphPlan& p : plans) {
    const ModelApi part = describe_model_api(*p.graph, *p.plan, prefix);
    for (const auto& [all, more] : {std::pair{&api.inputs, &part.inputs}, std::pair{&api.outputs, &part.outputs}}) {
      for (const ModelIoTensor& t : *more) {
        for (const ModelIoTensor& held : *all) {
          TINYFIT_CHECK(held.index != t.index) << "two plans of one device hold model tensor " << t.index;
        }
        all->push_back(t);
      }
    }
  }
  api.input_type = find_common_type(api.inputs);
  api.output_type = find_common_type(api.outputs);
  return api;
}

std::string declare_input_function(const ModelApi& api) {
  return api.input_type + "* " + api.input_function() + "(int index);";
}

std::string declare_output_function(const ModelApi& api) {
  return "const " + api.output_type + "* " + api.output_function() + "(int index);";
}

std::string declare_invoke_function(const ModelApi& api) { return "int " + api.invoke_function() + "(void);"; }

std::string declare_run_function(const ModelApi& api) {
  std::string text = "int " + api.run_function() + "(";
  bool first = true;
  for (const ModelIoTensor& t : api.inputs) {
    text += (first ? "" : ", ") + std::string("const ") + std::string(c_element_type(t.tensor->dtype)) + "* " +
            t.parameter;
    first = false;
  }
  for (const ModelIoTensor& t : api.outputs) {
    text += (first ? "" : ", ") + std::string(c_element_type(t.tensor->dtype)) + "* " + t.parameter;
    first = false;
  }
  // A device that holds no model input or output: (void), not ().
  return text + (first ? "void);" : ");");
}

std::string define_api_functions(const ModelApi& api, const std::string& arena_symbol,
                                 const std::string& invoke_body) {
  std::ostringstream out;
  out << "/* The model's inputs and outputs are tensors of the arena: the caller\n"
      << " * writes and reads them there, and invoke never copies them. */\n"
      << define_accessor(declare_input_function(api), api.input_type + "*", api.inputs, arena_symbol) << "\n"
      << define_accessor(declare_output_function(api), "const " + api.output_type + "*", api.outputs, arena_symbol)
      << "\n";
  const std::string invoke = declare_invoke_function(api);
  out << invoke.substr(0, invoke.size() - 1) << " {\n" << invoke_body << "  return 0;\n}\n\n";

  // run(): the copying convenience, nothing but the three functions above
  // (copy_bytes only when there is something to copy: an unused static
  // function is a warning).
  if (!api.inputs.empty() || !api.outputs.empty()) {
    out << "static void copy_bytes(uint8_t* dst, const uint8_t* src, int32_t bytes) {\n"
        << "  int32_t i;\n  for (i = 0; i < bytes; ++i) dst[i] = src[i];\n}\n\n";
  }
  const std::string run = declare_run_function(api);
  out << run.substr(0, run.size() - 1) << " {\n  int status;\n";
  for (const ModelIoTensor& t : api.inputs) {
    out << "  copy_bytes((uint8_t*)" << api.input_function() << "(" << t.index << "), (const uint8_t*)"
        << t.parameter << ", " << t.macro << "_BYTES);\n";
  }
  out << "  status = " << api.invoke_function() << "();\n";
  for (const ModelIoTensor& t : api.outputs) {
    out << "  copy_bytes((uint8_t*)" << t.parameter << ", (const uint8_t*)" << api.output_function() << "("
        << t.index << "), " << t.macro << "_BYTES);\n";
  }
  out << "  return status;\n}\n";
  return out.str();
}

}  // namespace tinyfit::codegen
