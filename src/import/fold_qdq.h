#pragma once
#include "ir/graph.h"
namespace tinyfit::import {
void fold_qdq(ir::Graph& graph);
}  // namespace tinyfit::import
