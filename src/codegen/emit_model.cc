#include "codegen/emit_model.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <sstream>

#include "codegen/c_source.h"
#include "codegen/emit_build_files.h"
#include "codegen/link_transfer.h"
#include "codegen/model_api.h"
#include "codegen/runtime_sources.h"
#include "exec/kernel_call.h"
#include "plan/plan_walk.h"

namespace tinyfit::codegen {
namespace {

// The C variables of the chunk of the loop at `depth` ("chunk_begin",
// "chunk_end_1"): depth 0 keeps the plain names.
std::string chunk_variable(int depth, plan::BoundOf of) {
  const std::string name = of == plan::BoundOf::kChunkBegin ? "chunk_begin" : "chunk_end";
  return depth == 0 ? name : name + "_" + std::to_string(depth);
}

// Which generated helpers the bounds of a plan's views call.
struct LoopBoundUse {
  bool plain = false;    // loop_bound()
  bool divided = false;  // loop_bound_divided(), for bounds with a divisor
};

// A C expression of a bound of the loop at `depth` (plan.h Bound): a number,
// the chunk variable itself, or a call of the generated loop_bound() (or
// loop_bound_divided() when the bound's divisor is above 1).
std::string bound_expression(const plan::Bound& bound, int depth, int64_t loop_extent, LoopBoundUse& uses_loop_bound) {
  if (bound.scale == 0 && bound.low == bound.offset && bound.high == bound.offset) return std::to_string(bound.offset);
  if (bound == plan::make_chunk_bound(bound.of, loop_extent)) return chunk_variable(depth, bound.of);
  const std::string arguments = chunk_variable(depth, bound.of) + ", " + std::to_string(loop_extent) + ", " +
                                std::to_string(bound.scale) + ", " + std::to_string(bound.offset) + ", " +
                                std::to_string(bound.low) + ", " + std::to_string(bound.high);
  if (bound.divisor == 1) {
    uses_loop_bound.plain = true;
    return "loop_bound(" + arguments + ")";
  }
  uses_loop_bound.divided = true;
  return "loop_bound_divided(" + arguments + ", " + std::to_string(bound.divisor) + ")";
}

// The declaration of a view in one iteration: its first byte, extents and
// origin, with every swept axis computed from the chunk variables as
// plan::resolve_view does.
std::string make_view_code(const plan::Plan& plan, const plan::View& view, const std::string& variable,
                           plan::LoopNest nest, LoopBoundUse& uses_loop_bound) {
  const plan::PlanBuffer& buffer = plan.buffers.at(static_cast<size_t>(view.buffer));
  const int64_t element_bytes = ir::dtype_size_bytes(buffer.dtype);
  const int pad = 4 - view.rank();
  TINYFIT_CHECK(pad >= 0) << "view of rank " << view.rank();
  std::ostringstream locals, data;
  std::array<std::string, 4> shape, origin;
  for (int a = 0; a < 4; ++a) {
    shape[static_cast<size_t>(a)] = a < pad ? "1" : std::to_string(view.shape[static_cast<size_t>(a - pad)]);
    origin[static_cast<size_t>(a)] = "0";
  }
  data << "arena + " << buffer.offset + view.offset_elements * element_bytes;
  for (const plan::Sweep& sweep : view.sweeps) {
    const int64_t extent = nest[static_cast<size_t>(sweep.loop)]->extent;
    const auto axis = static_cast<size_t>(pad + sweep.axis);
    const int64_t stride_bytes = view.strides[static_cast<size_t>(sweep.axis)] * element_bytes;
    std::string first = bound_expression(sweep.first, sweep.loop, extent, uses_loop_bound);
    std::string last = bound_expression(sweep.last, sweep.loop, extent, uses_loop_bound);
    const bool chunk_itself = sweep.first == plan::make_chunk_bound(plan::BoundOf::kChunkBegin, extent) &&
                              sweep.last == plan::make_chunk_bound(plan::BoundOf::kChunkEnd, extent);
    if (!chunk_itself) {
      // Named once: each appears in the start, the extent and the origin.
      const std::string prefix = variable + "_" + std::to_string(sweep.axis);
      locals << "const int32_t " << prefix << "_first = " << first << ", " << prefix << "_last = " << last << ";\n";
      first = prefix + "_first";
      last = prefix + "_last";
    }
    // A chunk never ends before it begins; other ranges may be empty.
    shape[axis] = chunk_itself ? last + " - " + first : "(" + last + " > " + first + " ? " + last + " - " + first + " : 0)";
    origin[axis] = first;
    // The buffer holds `base` at position 0: the view starts first - base rows in.
    if (sweep.base == sweep.first) continue;
    const std::string base = bound_expression(sweep.base, sweep.loop, extent, uses_loop_bound);
    const std::string position = base == "0" ? first : "(" + first + " - " + base + ")";
    data << " + " << position << " * " << stride_bytes;
  }
  std::ostringstream out;
  out << locals.str() << "tf_view " << variable << " = {" << data.str() << ", {" << shape[0] << ", " << shape[1]
      << ", " << shape[2] << ", " << shape[3] << "}, {";
  for (int a = 0; a < 4; ++a) {
    out << (a ? ", " : "") << (a < pad ? 0 : view.strides[static_cast<size_t>(a - pad)]);
  }
  out << "}, {" << origin[0] << ", " << origin[1] << ", " << origin[2] << ", " << origin[3] << "}};";
  return out.str();
}

// The declaration of a view fixed at compile time (device_steps.h), padded
// on the left to rank 4 as exec::make_tf_view pads.
std::string make_static_view_code(const StaticView& view, const std::string& variable) {
  const size_t rank = view.shape.size();
  TINYFIT_CHECK(rank <= 4 && view.strides.size() == rank && view.origin.size() == rank)
      << "static view of rank " << rank;
  const size_t pad = 4 - rank;
  std::ostringstream out;
  out << "tf_view " << variable << " = {arena + " << view.offset_bytes << ", {";
  for (size_t a = 0; a < 4; ++a) out << (a ? ", " : "") << (a < pad ? 1 : view.shape[a - pad]);
  out << "}, {";
  for (size_t a = 0; a < 4; ++a) out << (a ? ", " : "") << (a < pad ? 0 : view.strides[a - pad]);
  out << "}, {";
  for (size_t a = 0; a < 4; ++a) out << (a ? ", " : "") << (a < pad ? 0 : view.origin[a - pad]);
  out << "}};";
  return out.str();
}

class ModelEmitter final : public exec::CallEmitter {
 public:
  ModelEmitter(const ir::Graph& graph, const plan::Plan& plan) : graph_(&graph), plan_(&plan) {}

  // The plan (and its graph) the next steps come from: a device that runs
  // several plans in one arena switches between them.
  void use_plan(const GraphPlan& plan) {
    graph_ = plan.graph;
    plan_ = plan.plan;
  }

  // --- exec::CallEmitter ---------------------------------------------------
  std::string define_array(std::string_view element_c_type, std::string_view hint,
                           std::span<const uint8_t> bytes) override {
    std::string key = std::string(element_c_type) + '\0' + std::string(bytes.begin(), bytes.end());
    if (auto found = arrays_.find(key); found != arrays_.end()) return found->second;
    const std::string name = make_name(hint);
    constants_ << "static const " << element_c_type << " " << name << "[] = "
               << format_array_initializer(element_c_type, bytes) << ";\n\n";
    constant_bytes_ += static_cast<int64_t>(bytes.size());
    arrays_.emplace(std::move(key), name);
    return name;
  }

  std::string define_struct(std::string_view struct_c_type, std::string_view hint,
                            const std::vector<std::pair<std::string, std::string>>& fields) override {
    const std::string name = make_name(hint);
    constants_ << "static const " << struct_c_type << " " << name << " = {";
    for (size_t i = 0; i < fields.size(); ++i) {
      constants_ << (i ? "," : "") << "\n    ." << fields[i].first << " = " << fields[i].second;
    }
    constants_ << "\n};\n\n";
    return name;
  }

  std::string input_view(size_t i) const override { return use_view("in" + std::to_string(i)); }
  std::string output_view(size_t i) const override { return use_view("out" + std::to_string(i)); }
  std::string workspace() const override { return workspace_; }
  std::string workspace_bytes() const override { return workspace_bytes_; }
  std::string chunk_begin() const override {
    if (fixed_chunk_) return std::to_string(fixed_chunk_->begin);
    return channel_depth_ >= 0 ? chunk_variable(channel_depth_, plan::BoundOf::kChunkBegin) : "0";
  }
  std::string chunk_end() const override {
    if (fixed_chunk_) return std::to_string(fixed_chunk_->end);
    return channel_depth_ >= 0 ? chunk_variable(channel_depth_, plan::BoundOf::kChunkEnd) : "0";
  }
  std::string first_iteration() const override {
    if (fixed_chunk_) return fixed_chunk_->begin == 0 ? "1" : "0";
    return channel_depth_ >= 0 ? "(" + chunk_variable(channel_depth_, plan::BoundOf::kChunkBegin) + " == 0)" : "1";
  }

  void call(std::string_view header, std::string_view function, const std::vector<std::string>& arguments) override {
    headers_.insert(std::string(header));
    kernels_.insert(std::string(function));
    std::string line = std::string(function) + "(";
    for (size_t i = 0; i < arguments.size(); ++i) line += (i ? ", " : "") + arguments[i];
    emit_line(line + ");");
  }

  // --- The run function ----------------------------------------------------
  Status emit_call(const plan::KernelCall& call, plan::LoopNest nest, const std::string& comment) {
    TINYFIT_ASSIGN_OR_RETURN(std::unique_ptr<exec::PreparedKernel> kernel,
                             exec::prepare_kernel(exec::KernelCallContext{*graph_, *plan_, call}));
    channel_depth_ = -1;
    for (size_t d = 0; d < nest.size(); ++d) {
      if (nest[d]->axis == plan::LoopAxis::kChannels) channel_depth_ = static_cast<int>(d);
    }
    workspace_ = "(uint8_t*)0";
    workspace_bytes_ = "0";
    if (call.workspace >= 0) {
      const plan::PlanBuffer& w = plan_->buffers[static_cast<size_t>(call.workspace)];
      workspace_ = "(arena + " + std::to_string(w.offset) + ")";
      workspace_bytes_ = std::to_string(w.bytes);
    }
    emit_line("/* " + comment + " */");
    emit_line("{");
    ++indent_;
    // The kernel's statements first, into their own text, so that only the
    // views it uses are declared (an unused local is a -Wall warning).
    std::string outer;
    std::swap(outer, body_);
    used_views_.clear();
    current_hint_ = call.node >= 0 ? graph_->nodes[static_cast<size_t>(call.node)].name : "copy";
    TINYFIT_RETURN_IF_ERROR(kernel->emit(*this));
    std::string statements;
    std::swap(statements, body_);
    body_ = std::move(outer);
    for (size_t i = 0; i < call.inputs.size(); ++i) {
      if (!used_views_.contains("in" + std::to_string(i))) continue;
      emit_lines(make_view_code(*plan_, call.inputs[i], "in" + std::to_string(i), nest, uses_loop_bound_));
    }
    for (size_t i = 0; i < call.outputs.size(); ++i) {
      if (!used_views_.contains("out" + std::to_string(i))) continue;
      emit_lines(make_view_code(*plan_, call.outputs[i], "out" + std::to_string(i), nest, uses_loop_bound_));
    }
    body_ += statements;
    --indent_;
    emit_line("}");
    return {};
  }

  // Steps in order; a loop as a C for loop around its body (never unrolled),
  // nested loops inside it with their own chunk variables.
  Status emit_steps(std::span<const plan::Step> steps, std::vector<const plan::Loop*>& nest, int top_step) {
    for (size_t s = 0; s < steps.size(); ++s) {
      const plan::Step& step = steps[s];
      const int step_number = top_step >= 0 ? top_step : static_cast<int>(s);
      if (!step.is_loop()) {
        TINYFIT_RETURN_IF_ERROR(emit_call(step.call(), nest, describe_call(step_number, step.call())));
        continue;
      }
      const plan::Loop& loop = step.loop();
      const int depth = static_cast<int>(nest.size());
      const std::string begin = chunk_variable(depth, plan::BoundOf::kChunkBegin);
      const std::string end = chunk_variable(depth, plan::BoundOf::kChunkEnd);
      const std::string extent = std::to_string(loop.extent), tile = std::to_string(loop.tile);
      emit_line("/* step " + std::to_string(step_number) + ": loop '" + loop.name + "', " + extent + " " +
                std::string(plan::loop_axis_name(loop.axis)) + ", " + tile + " at a time */");
      emit_line("for (" + begin + " = 0; " + begin + " < " + extent + "; " + begin + " += " + tile + ") {");
      ++indent_;
      emit_line("const int32_t " + end + " = " + begin + " + " + tile + " < " + extent + " ? " + begin + " + " +
                tile + " : " + extent + ";");
      nest.push_back(&loop);
      TINYFIT_RETURN_IF_ERROR(emit_steps(loop.body, nest, step_number));
      nest.pop_back();
      --indent_;
      emit_line("}");
      loop_depths_ = std::max(loop_depths_, depth + 1);
    }
    return {};
  }

  // A part of an operator (device_steps.h PartCall): its kernel on views
  // fixed at compile time, the chunk a constant.
  Status emit_part_call(const PartCall& part, int step_number) {
    TINYFIT_CHECK(part.kernel != nullptr && part.node >= 0) << "part call without a kernel";
    const ir::Node& node = graph_->nodes.at(static_cast<size_t>(part.node));
    emit_line("/* step " + std::to_string(step_number) + ": " + make_c_comment_text(node.name) + " (" +
              std::string(ir::op_type_name(node.op)) + "), " + make_c_comment_text(part.label) + " */");
    emit_line("{");
    ++indent_;
    std::string outer;
    std::swap(outer, body_);
    used_views_.clear();
    current_hint_ = node.name;
    channel_depth_ = -1;
    fixed_chunk_ = part.chunk;
    workspace_ = "(uint8_t*)0";
    workspace_bytes_ = "0";
    const Status emitted = part.kernel->emit(*this);
    fixed_chunk_.reset();
    std::string statements;
    std::swap(statements, body_);
    body_ = std::move(outer);
    TINYFIT_RETURN_IF_ERROR(emitted);
    for (size_t i = 0; i < part.inputs.size(); ++i) {
      if (used_views_.contains("in" + std::to_string(i))) emit_line(make_static_view_code(part.inputs[i], "in" + std::to_string(i)));
    }
    for (size_t i = 0; i < part.outputs.size(); ++i) {
      if (used_views_.contains("out" + std::to_string(i))) emit_line(make_static_view_code(part.outputs[i], "out" + std::to_string(i)));
    }
    body_ += statements;
    --indent_;
    emit_line("}");
    return {};
  }

  // What a device of several runs (device_steps.h), in order; `plans` are
  // its plans, PlanStepRef::plan's numbering (part calls refer to plan 0).
  Status emit_device_steps(const std::vector<DeviceStep>& steps, const std::vector<GraphPlan>& plans) {
    std::vector<const plan::Loop*> nest;
    for (size_t s = 0; s < steps.size(); ++s) {
      const int number = static_cast<int>(s);
      if (const auto* ref = std::get_if<PlanStepRef>(&steps[s])) {
        TINYFIT_CHECK(ref->plan >= 0 && static_cast<size_t>(ref->plan) < plans.size())
            << "device step of plan " << ref->plan << " of " << plans.size();
        use_plan(plans[static_cast<size_t>(ref->plan)]);
        TINYFIT_CHECK(ref->index >= 0 && static_cast<size_t>(ref->index) < plan_->steps.size())
            << "device step of plan step " << ref->index;
        TINYFIT_RETURN_IF_ERROR(emit_steps(std::span<const plan::Step>(&plan_->steps[static_cast<size_t>(ref->index)], 1),
                                           nest, number));
      } else if (const auto* part = std::get_if<PartCall>(&steps[s])) {
        use_plan(plans.front());
        TINYFIT_RETURN_IF_ERROR(emit_part_call(*part, number));
      } else if (const auto* transfer = std::get_if<LinkTransfer>(&steps[s])) {
        body_ += make_link_transfer_code(*transfer, 2 * indent_);
      } else {
        body_ += make_local_copy_code(std::get<LocalCopy>(steps[s]), 2 * indent_);
      }
    }
    return {};
  }

  const std::string& body() const { return body_; }
  std::string constants() const { return constants_.str(); }
  const std::set<std::string>& headers() const { return headers_; }
  const std::set<std::string>& kernels() const { return kernels_; }
  int loop_depths() const { return loop_depths_; }  // deepest nest: chunk variables to declare
  LoopBoundUse uses_loop_bound() const { return uses_loop_bound_; }
  int64_t constant_bytes() const { return constant_bytes_; }
  void set_indent(int indent) { indent_ = indent; }

 private:
  std::string describe_call(int step, const plan::KernelCall& call) const {
    std::string text = "step " + std::to_string(step) + ": ";
    if (call.node < 0) return text + std::string(plan::call_mode_name(call.mode));
    const ir::Node& node = graph_->nodes[static_cast<size_t>(call.node)];
    return text + make_c_comment_text(node.name) + " (" + std::string(ir::op_type_name(node.op)) + "), " +
           std::string(plan::call_mode_name(call.mode));
  }

  // TFLite names fused nodes "a/b/Relu;a/b/BiasAdd;...": the first part names
  // the node well enough, and a cap keeps identifiers readable; the counter
  // below keeps them unique.
  std::string make_name(std::string_view hint) {
    constexpr size_t kMaxNodePart = 40;
    std::string node = current_hint_.substr(0, current_hint_.find(';'));
    if (node.size() > kMaxNodePart) node = node.substr(node.size() - kMaxNodePart);
    std::string base = make_c_identifier(node + "_" + std::string(hint));
    const int n = name_counts_[base]++;
    return n == 0 ? base : base + "_" + std::to_string(n);
  }

  std::string use_view(std::string variable) const {
    used_views_.insert(variable);
    return "&" + variable;
  }

  void emit_line(const std::string& line) { body_ += std::string(static_cast<size_t>(2 * indent_), ' ') + line + "\n"; }
  void emit_lines(const std::string& lines) {
    std::istringstream in(lines);
    for (std::string line; std::getline(in, line);) emit_line(line);
  }

  const ir::Graph* graph_;
  const plan::Plan* plan_;
  std::ostringstream constants_;
  std::map<std::string, std::string> arrays_;  // type + bytes -> name
  std::map<std::string, int> name_counts_;
  std::set<std::string> headers_, kernels_;
  mutable std::set<std::string> used_views_;  // "in0", "out1": views the current call's emitter asked for
  std::string body_;
  int indent_ = 1;
  int channel_depth_ = -1;  // the innermost channel loop around the current call, or -1
  std::optional<ir::Range> fixed_chunk_;  // a part call's chunk
  int loop_depths_ = 0;
  LoopBoundUse uses_loop_bound_;
  std::string workspace_, workspace_bytes_, current_hint_;
  int64_t constant_bytes_ = 0;
};

std::string emit_header(const ir::Graph& graph, const plan::Plan& plan, const ModelApi& api,
                        const EmitOptions& options, const EmittedModel& model) {
  const std::string upper = make_macro_name(api.prefix);
  const std::string guard = upper + "_MODEL_H_";
  std::ostringstream out;
  out << "/* " << api.prefix << ": generated by tinyfit from " << describe_source(graph) << ". Do not edit.\n"
      << " * Techniques: ";
  for (size_t i = 0; i < plan.techniques.size(); ++i) out << (i ? ", " : "") << plan.techniques[i];
  if (plan.techniques.empty()) out << "ordinary execution";
  out << ".\n * Tensors are dense NHWC (channels last) in their quantized type: real =\n"
      << " * scale * (q - zero_point). Every activation, the model's inputs and outputs\n"
      << " * included, lives in one static arena inside model.c of exactly\n"
      << " * " << upper << "_ARENA_BYTES bytes; weights are const (flash). */\n"
      << "#ifndef " << guard << "\n#define " << guard << "\n\n#include <stdint.h>\n\n"
      << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
      << "#define " << upper << "_ARENA_BYTES " << plan.arena_bytes << "\n";
  if (options.device >= 0) {
    out << "\n/* Device " << options.device << " of " << options.device_count
        << ": this folder is one device's part of the model. Its invoke\n"
        << " * exchanges slices with the other devices through tinyfit_link_send and\n"
        << " * tinyfit_link_recv (tinyfit_link.h), which the firmware implements; every\n"
        << " * device's invoke runs once per inference. Bytes it sends and receives: */\n"
        << "#define " << upper << "_DEVICE " << options.device << "\n"
        << "#define " << upper << "_DEVICE_COUNT " << options.device_count << "\n"
        << "#define " << upper << "_LINK_SEND_BYTES " << model.link_send_bytes << "\n"
        << "#define " << upper << "_LINK_RECEIVE_BYTES " << model.link_receive_bytes << "\n\n";
  }
  out << "#define " << upper << "_INPUT_COUNT " << api.inputs.size() << "\n"
      << "#define " << upper << "_OUTPUT_COUNT " << api.outputs.size() << "\n\n";
  for (const auto* tensors : {&api.inputs, &api.outputs}) {
    for (const ModelIoTensor& t : *tensors) {
      out << "/* " << t.parameter << ": '" << make_c_comment_text(t.tensor->name) << "', " << ir::dtype_name(t.tensor->dtype) << " "
          << ir::format_shape(t.tensor->shape) << " */\n";
      out << "#define " << t.macro << "_BYTES " << t.tensor->size_bytes() << "\n";
      out << "#define " << t.macro << "_RANK " << t.tensor->shape.size() << "\n";
      out << "#define " << t.macro << "_SHAPE {";
      for (size_t a = 0; a < t.tensor->shape.size(); ++a) out << (a ? ", " : "") << t.tensor->shape[a];
      out << "}\n";
      if (t.tensor->quant && t.tensor->quant->scale.size() == 1) {
        out << "#define " << t.macro << "_SCALE " << format_float_literal(t.tensor->quant->scale[0]) << "\n";
        out << "#define " << t.macro << "_ZERO_POINT " << t.tensor->quant->zero_point[0] << "\n";
      }
      out << "\n";
    }
  }
  out << "/* Zero copy: the inputs and outputs are tensors of the arena. Per inference:\n"
      << " *   1. write each input i through " << api.input_function() << "(i) (" << upper
      << "_INPUT<i>_BYTES bytes);\n"
      << " *   2. call " << api.invoke_function() << "();\n"
      << " *   3. read each output i through " << api.output_function() << "(i).\n"
      << " * The pointers never change (take them once); an index out of range gives a\n"
      << " * null pointer. invoke may overwrite the inputs (the arena reuses their bytes):\n"
      << " * write them before every invoke. An output is valid from invoke until the\n"
      << " * next invoke or the next write to an input (they may share bytes).\n"
      << " * Not reentrant: every call uses the one static arena. */\n"
      << declare_input_function(api) << "\n"
      << declare_output_function(api) << "\n\n"
      << (options.device < 0
              ? "/* One inference in the arena; returns 0 (every size was checked when the\n"
                " * code was generated). */\n"
              : "/* This device's part of one inference in the arena; returns 0, or the\n"
                " * status of a link call that failed (every size was checked when the\n"
                " * code was generated). */\n")
      << declare_invoke_function(api) << "\n\n"
      << "/* Convenience: copies the inputs from your buffers into the arena, invokes,\n"
      << " * copies the outputs to your buffers; returns what invoke returned. Costs the copies, and your\n"
      << " * buffers' SRAM on top of the arena. */\n"
      << declare_run_function(api) << "\n\n"
      << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return out.str();
}

std::string emit_source(const ir::Graph& graph, const plan::Plan& plan, const ModelApi& api,
                        const ModelEmitter& emitter, const EmitOptions& options) {
  int64_t alignment = 4;
  for (const plan::PlanBuffer& b : plan.buffers) alignment = std::max(alignment, b.alignment);
  const std::string arena = api.prefix + "_arena";
  std::ostringstream out;
  out << "/* " << api.prefix << ": generated by tinyfit from " << describe_source(graph) << ". Do not edit. */\n"
      << "#include \"model.h\"\n\n#include \"tinyfit/runtime.h\"\n";
  if (options.device >= 0) out << "#include \"tinyfit_link.h\"\n";
  for (const std::string& header : emitter.headers()) out << "#include \"" << header << "\"\n";
  // A device of several that the plan leaves idle (no buffer, no step, no
  // model input or output) has no arena: an unused static array is a warning.
  if (emitter.body().empty() && api.inputs.empty() && api.outputs.empty()) {
    out << "\n/* No activation arena: this device holds no buffer and runs nothing. */\n\n";
  } else {
    out << "\n/* The activation arena: every plan buffer at its planned offset. */\n"
        << "static uint8_t " << arena << "[" << plan.arena_bytes << "] __attribute__((aligned(" << alignment
        << ")));\n\n";
  }
  out << emitter.constants();
  if (emitter.uses_loop_bound().plain) {
    out << "/* An index that moves with a loop (tinyfit plan.h Bound): low at x == 0, high at\n"
        << " * x == extent, otherwise clamp(scale * x + offset, low, high). */\n"
        << "static int32_t loop_bound(int32_t x, int32_t extent, int32_t scale, int32_t offset, int32_t low,\n"
        << "                          int32_t high) {\n"
        << "  int32_t value;\n"
        << "  if (x <= 0) return low;\n"
        << "  if (x >= extent) return high;\n"
        << "  value = scale * x + offset;\n"
        << "  return value < low ? low : value > high ? high : value;\n"
        << "}\n\n";
  }
  if (emitter.uses_loop_bound().divided) {
    out << "/* The same with a divisor (x > 0): clamp(scale * (x / divisor) + offset, low, high). */\n"
        << "static int32_t loop_bound_divided(int32_t x, int32_t extent, int32_t scale, int32_t offset, int32_t low,\n"
        << "                                  int32_t high, int32_t divisor) {\n"
        << "  int32_t value;\n"
        << "  if (x <= 0) return low;\n"
        << "  if (x >= extent) return high;\n"
        << "  value = scale * (x / divisor) + offset;\n"
        << "  return value < low ? low : value > high ? high : value;\n"
        << "}\n\n";
  }
  // A graph of aliases only (an output that is a Reshape of the input) runs
  // no kernel: then invoke has nothing to declare.
  std::string invoke_body;
  if (!emitter.body().empty()) invoke_body += "  uint8_t* const arena = " + arena + ";\n";
  for (int depth = 0; depth < emitter.loop_depths(); ++depth) {
    invoke_body += "  int32_t " + chunk_variable(depth, plan::BoundOf::kChunkBegin) + ";\n";
  }
  invoke_body += emitter.body();
  out << define_api_functions(api, arena, invoke_body);
  return out.str();
}

// kernels.def rows: "TINYFIT_KERNEL(name, ..." -> names.
std::set<std::string> list_defined_kernels(std::string_view def) {
  std::set<std::string> names;
  static constexpr std::string_view kRow = "TINYFIT_KERNEL(";
  for (size_t at = def.find(kRow); at != std::string_view::npos; at = def.find(kRow, at + 1)) {
    const size_t begin = at + kRow.size();
    const size_t end = def.find(',', begin);
    if (end == std::string_view::npos) break;
    names.emplace(def.substr(begin, end - begin));
  }
  return names;
}

// The runtime files a model needs: every header, every kernel file it calls,
// and every helper file (a .c that is not itself a listed kernel).
std::vector<EmittedFile> select_runtime_files(const std::set<std::string>& used) {
  std::set<std::string> defined;
  for (const RuntimeSource& source : list_runtime_sources()) {
    if (source.path == "kernels.def") defined = list_defined_kernels(source.text);
  }
  std::vector<EmittedFile> files;
  for (const RuntimeSource& source : list_runtime_sources()) {
    if (source.path == "kernels.def" || source.path.starts_with("link/")) continue;
    const std::string path(source.path);
    if (path.starts_with("kernels/")) {
      const std::string stem = path.substr(8, path.size() - 8 - 2);  // kernels/<stem>.c
      const std::string function = "tf_" + stem;
      if (defined.contains(function) && !used.contains(function)) continue;
    }
    files.push_back({"runtime/" + path, std::string(source.text)});
  }
  return files;
}

// The arena of a device that runs several plans (EmitOptions::more_plans) as
// the header, the source and the README describe it: the largest plan's
// bytes, aligned for every plan's buffers, every plan's techniques. No steps.
plan::Plan summarize_device_arena(const std::vector<GraphPlan>& plans) {
  plan::Plan arena;
  for (const GraphPlan& p : plans) {
    arena.arena_bytes = std::max(arena.arena_bytes, p.plan->arena_bytes);
    arena.buffers.insert(arena.buffers.end(), p.plan->buffers.begin(), p.plan->buffers.end());
    for (const std::string& technique : p.plan->techniques) {
      if (std::find(arena.techniques.begin(), arena.techniques.end(), technique) == arena.techniques.end()) {
        arena.techniques.push_back(technique);
      }
    }
  }
  return arena;
}

}  // namespace

Result<EmittedModel> emit_c_model(const ir::Graph& graph, const plan::Plan& plan, const EmitOptions& options) {
  TINYFIT_CHECK(plan.arena_bytes > 0 || plan.buffers.empty()) << "emitting an unplaced plan";
  EmittedModel model;
  // A graph built in code may have no name: "model" keeps the symbols readable.
  const std::string name = !options.name.empty() ? options.name : !graph.name.empty() ? graph.name : "model";
  model.prefix = "tinyfit_" + make_c_identifier(name);
  if (options.device >= 0) model.prefix += "_device" + std::to_string(options.device);
  std::vector<GraphPlan> plans = {GraphPlan{&graph, &plan}};
  plans.insert(plans.end(), options.more_plans.begin(), options.more_plans.end());
  TINYFIT_CHECK(options.more_plans.empty() || options.device >= 0) << "several plans outside a multi-device model";
  const std::optional<plan::Plan> summary =
      options.more_plans.empty() ? std::nullopt : std::optional<plan::Plan>(summarize_device_arena(plans));
  const plan::Plan& arena = summary ? *summary : plan;
  model.arena_bytes = arena.arena_bytes;
  const ModelApi api = options.more_plans.empty() ? describe_model_api(graph, plan, model.prefix)
                                                  : describe_device_api(plans, model.prefix);
  for (const ModelIoTensor& t : api.inputs) model.input_indices.push_back(t.index);
  for (const ModelIoTensor& t : api.outputs) model.output_indices.push_back(t.index);

  ModelEmitter emitter(graph, plan);
  if (options.device < 0) {
    TINYFIT_CHECK(options.device_steps.empty()) << "device steps outside a multi-device model";
    std::vector<const plan::Loop*> nest;
    TINYFIT_RETURN_IF_ERROR(emitter.emit_steps(plan.steps, nest, -1));
  } else {
    for (const DeviceStep& step : options.device_steps) {
      const auto* transfer = std::get_if<LinkTransfer>(&step);
      if (transfer == nullptr) continue;
      TINYFIT_CHECK(transfer->peer >= 0 && transfer->peer < options.device_count && transfer->peer != options.device)
          << "link transfer with device " << transfer->peer << " on device " << options.device;
      (transfer->direction == LinkDirection::kSend ? model.link_send_bytes : model.link_receive_bytes) +=
          transfer->view.count_bytes();
    }
    TINYFIT_RETURN_IF_ERROR(emitter.emit_device_steps(options.device_steps, plans));
  }
  model.kernels.assign(emitter.kernels().begin(), emitter.kernels().end());
  model.constant_bytes = emitter.constant_bytes();

  std::vector<EmittedFile> runtime_files = select_runtime_files(emitter.kernels());
  std::vector<std::string> c_sources = {"model.c"};
  for (const EmittedFile& file : runtime_files) {
    if (file.path.ends_with(".c")) c_sources.push_back(file.path);
  }
  model.files.push_back({"model.h", emit_header(graph, arena, api, options, model)});
  model.files.push_back({"model.c", emit_source(graph, arena, api, emitter, options)});
  model.files.push_back({"README.md", emit_readme(graph, arena, api, model.constant_bytes)});
  model.files.push_back({"CMakeLists.txt", emit_cmake_lists(graph, api, c_sources)});
  if (options.device >= 0) {
    // Beside model.h, on the library's public include path: the firmware's
    // implementation of the link includes it too.
    for (const RuntimeSource& source : list_runtime_sources()) {
      if (source.path == "link/tinyfit_link.h") model.files.push_back({"tinyfit_link.h", std::string(source.text)});
    }
  }
  for (EmittedFile& file : runtime_files) model.files.push_back(std::move(file));
  return model;
}

Status write_emitted_model(const EmittedModel& model, const std::string& directory) {
  namespace fs = std::filesystem;
  for (const EmittedFile& file : model.files) {
    const fs::path path = fs::path(directory) / file.path;
    std::error_code error;
    fs::create_directories(path.parent_path(), error);
    if (error) return fail(path.parent_path().string() + ": cannot create directory: " + error.message());
    std::ofstream out(path, std::ios::binary);
    out << file.text;
    if (!out) return fail(path.string() + ": cannot write");
  }
  return {};
}

}  // namespace tinyfit::codegen
