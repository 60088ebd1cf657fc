#pragma once
#include "ir/graph.h"
namespace tinyfit::import {
void drop_io_quantization(ir::Graph& graph);
}  // namespace tinyfit::import
