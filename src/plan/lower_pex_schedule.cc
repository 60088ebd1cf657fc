#include "plan/lower_pex_schedule.h"

#include <string>

#include "plan/lowering_buffers.h"
#include "support/diag.h"

namespace tinyfit::plan {
namespace {

using partition::LoopBufferForm;
using partition::PexRule;

ir::DType accumulator_dtype(ir::DType output, int accumulator_bits) {
  if (output == ir::DType::kF32) return ir::DType::kF32;
  return accumulator_bits == 8 ? ir::DType::kI8 : accumulator_bits == 16 ? ir::DType::kI16 : ir::DType::kI32;
}

class PexLowering {
 public:
  PexLowering(const ir::Graph& graph, const analysis::BufferGraph& bg, const partition::PexGraph& pg,
              int accumulator_bits)
      : graph_(graph), bg_(bg), pg_(pg), bits_(accumulator_bits), buffers_(graph, bg, plan_) {}

  void lower_whole(int op_index) { plan_.steps.push_back(Step{buffers_.make_whole_call(op_index)}); }

  void lower_loop(const partition::PexLoop& pex_loop, int64_t tile) {
    const std::vector<LoopBufferForm> form = partition::classify_loop_buffers(pg_, pex_loop);
    std::vector<BufferId> partial(bg_.buffers.size(), -1);
    for (size_t b = 0; b < form.size(); ++b) {
      if (form[b] != LoopBufferForm::kPartial) continue;
      PlanBuffer buffer;
      buffer.name = bg_.buffers[b].name + ":chunk";
      buffer.role = BufferRole::kPartial;
      buffer.dtype = buffers_.dtype_of(static_cast<int>(b));
      buffer.bytes = pg_.buffers[b].chunk_bytes(tile);
      partial[b] = buffers_.add(std::move(buffer));
    }
    // A view of tensor t as a chunk of the loop's channels (the last axis).
    auto chunk_view = [&](ir::TensorId t) {
      const int b = buffers_.buffer_of(t);
      const ir::Shape& shape = graph_.tensor(t).shape;
      const int axis = static_cast<int>(shape.size()) - 1;
      if (partial[static_cast<size_t>(b)] >= 0) {
        ir::Shape chunk_shape = shape;
        chunk_shape.back() = tile;
        return follow_chunk(make_dense_view(partial[static_cast<size_t>(b)], chunk_shape), 0, axis, pex_loop.extent,
                            true);
      }
      return follow_chunk(make_dense_view(buffers_.whole(b), shape), 0, axis, pex_loop.extent, false);
    };

    Loop loop;
    loop.name = "pex-loop-" + std::to_string(loops_++);
    loop.axis = LoopAxis::kChannels;
    loop.extent = pex_loop.extent;
    loop.tile = tile;
    std::vector<KernelCall> finalize;
    for (size_t i = 0; i < pex_loop.ops.size(); ++i) {
      const int op_index = pex_loop.ops[i];
      const PexRule rule = pex_loop.rules[i];
      const ir::NodeId node_id = bg_.operators[static_cast<size_t>(op_index)].node;
      const ir::Node& node = graph_.nodes[static_cast<size_t>(node_id)];
      KernelCall call;
      call.node = node_id;
      call.mode = rule == PexRule::kAccumulate ? CallMode::kAccumulate : CallMode::kChunk;
      for (ir::TensorId t : node.inputs) {
        if (t == ir::kNoTensor || graph_.tensor(t).is_constant) continue;
        call.inputs.push_back(rule == PexRule::kGenerate ? buffers_.whole_view(t) : chunk_view(t));
      }
      const ir::TensorId out = node.outputs.at(0);
      if (rule == PexRule::kAccumulate) {
        const BufferId accumulator = make_accumulator(op_index, out);
        call.accumulator_bits = bits_;
        call.outputs.push_back(make_dense_view(accumulator, graph_.tensor(out).shape));
        KernelCall last;
        last.node = node_id;
        last.mode = CallMode::kFinalize;
        last.accumulator_bits = bits_;
        last.inputs.push_back(make_dense_view(accumulator, graph_.tensor(out).shape));
        last.outputs.push_back(buffers_.whole_view(out));
        finalize.push_back(std::move(last));
      } else {
        call.outputs.push_back(chunk_view(out));
      }
      call.workspace = buffers_.add_workspace(bg_.operators[static_cast<size_t>(op_index)]);
      loop.body.push_back(Step{std::move(call)});
    }
    plan_.steps.push_back(Step{std::move(loop)});
    for (KernelCall& call : finalize) plan_.steps.push_back(Step{std::move(call)});
  }

  Plan finish() {
    buffers_.add_graph_inputs_and_outputs();
    plan_.techniques.push_back("pex");
    return std::move(plan_);
  }

 private:
  BufferId make_accumulator(int op_index, ir::TensorId out) {
    const partition::PexOperator& op = pg_.operators[static_cast<size_t>(op_index)];
    const int b = buffers_.buffer_of(out);
    PlanBuffer buffer;
    buffer.name = bg_.operators[static_cast<size_t>(op_index)].name + ":acc";
    buffer.role = BufferRole::kAccumulator;
    buffer.dtype = accumulator_dtype(graph_.tensor(out).dtype, bits_);
    buffer.bytes = op.accumulator_bytes;
    if (!op.finalize_in_place) return buffers_.add(std::move(buffer));
    // The output is finalized over its accumulator: one buffer, the output's.
    buffer.dtype = buffers_.dtype_of(b);
    if (bg_.buffers[static_cast<size_t>(b)].is_model_output) buffer.role = BufferRole::kModelOutput;
    const BufferId id = buffers_.add(std::move(buffer));
    buffers_.bind_whole(b, id);
    return id;
  }

  const ir::Graph& graph_;
  const analysis::BufferGraph& bg_;
  const partition::PexGraph& pg_;
  const int bits_;
  Plan plan_;
  LoweringBuffers buffers_;  // adds to plan_
  int loops_ = 0;
};

}  // namespace

Plan lower_pex_schedule(const ir::Graph& graph, const analysis::BufferGraph& bg, const partition::PexGraph& pg,
                        const partition::PexSchedule& schedule, const std::vector<int64_t>& tiles,
                        int accumulator_bits) {
  PexLowering lowering(graph, bg, pg, accumulator_bits);
  size_t loop = 0;
  for (const partition::PexInstruction& instruction : schedule.instructions) {
    if (!instruction.is_loop) {
      lowering.lower_whole(instruction.op);
      continue;
    }
    TINYFIT_CHECK(loop < tiles.size()) << "pex: " << tiles.size() << " tiles for more loops";
    lowering.lower_loop(instruction.loop, tiles[loop++]);
  }
  return lowering.finish();
}

}  // namespace tinyfit::plan
