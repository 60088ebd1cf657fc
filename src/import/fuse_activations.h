// Pass fuse-activations: a kClip (Relu, Relu6, Clip) whose producer accepts a
// fused activation (OpDecl::fuses_activation) and has no other reader becomes
// the producer's FusedActivation. The clamp is in real values; the producer
// then writes the clip's output tensor, so its quantization parameters stay.
// Requires: shapes inferred. Guarantees: no such kClip remains.
#pragma once

#include "ir/graph.h"

namespace tinyfit::import {

void fuse_activations(ir::Graph& graph);

}  // namespace tinyfit::import
