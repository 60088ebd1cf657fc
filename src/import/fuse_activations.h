#pragma once
#include "ir/graph.h"
namespace tinyfit::import {
void fuse_activations(ir::Graph& graph);
}  // namespace tinyfit::import
