// The graph as partial execution sees it (PEX §3.1): operators over activation
// buffers, each operator with its kind (channel-wise C / aggregating A, PEX
// Def. 3) and the channel counts of what it reads and writes. Plain records
// (STYLE.md rule 5): the scheduler (pex_schedule.h) never sees the IR, so its
// tests build these by hand.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/buffer_graph.h"
#include "ir/graph.h"

namespace tinyfit::partition {

enum class PexKind { kChannelwise, kAggregating, kOther };

struct PexRead {
  int buffer = -1;
  int64_t channels = 0;  // last axis of the tensor the operator reads it as
};

struct PexOperator {
  PexKind kind = PexKind::kOther;
  std::vector<PexRead> inputs;   // activation buffers, unique
  std::vector<int> outputs;      // buffers written
  int64_t workspace_bytes = 0;
  // May run one chunk of channels inside a loop: one output; channel-wise:
  // every input has the output's channels (no broadcast along channels);
  // aggregating: exactly one activation input.
  bool chunkable = false;
  // Bytes of its Accumulate-rule accumulator (output elements x accumulator
  // element size), and whether kFinalize may write the output over it (same
  // element size: 8-bit accumulators of an 8-bit output), so the accumulator
  // *is* the output buffer, as in PEX's 'Aggregate' into o^F.
  int64_t accumulator_bytes = 0;
  bool finalize_in_place = false;
};

struct PexBuffer {
  int64_t bytes = 0;          // the whole tensor
  int64_t channels = 0;       // last axis of the tensor its producer writes (0: rank 0)
  int producer = -1;          // operator, -1 for a model input
  std::vector<int> consumers; // operators, ascending, unique
  bool is_model_output = false;

  // Bytes of `tile` channels: what a partial buffer (PEX t^P) of it holds.
  int64_t chunk_bytes(int64_t tile) const { return channels > 0 ? bytes / channels * tile : bytes; }
};

struct PexGraph {
  std::vector<PexOperator> operators;  // topological (index order)
  std::vector<PexBuffer> buffers;
};

// Element bytes of an Accumulate-rule accumulator for an output of `dtype`:
// float32 for float outputs whatever `accumulator_bits` says; otherwise
// accumulator_bits / 8 (32: int32, exact; 16 or 8: PEX §3.4).
int64_t accumulator_element_bytes(ir::DType output_dtype, int accumulator_bits);

// Requires: bg == build_buffer_graph(graph); accumulator_bits in {8, 16, 32}.
// Guarantees: operator i is bg operator i, buffer i is bg buffer i (same bytes,
// producer, consumers, outputs).
PexGraph build_pex_graph(const ir::Graph& graph, const analysis::BufferGraph& bg, int accumulator_bits);

}  // namespace tinyfit::partition
