#pragma once
#include "ir/graph.h"
namespace tinyfit::import {
void fold_batch_norm(ir::Graph& graph);
}  // namespace tinyfit::import
