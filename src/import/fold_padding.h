#pragma once
#include "ir/graph.h"
namespace tinyfit::import {
void fold_padding(ir::Graph& graph);
}  // namespace tinyfit::import
