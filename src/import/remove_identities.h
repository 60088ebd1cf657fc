#pragma once
#include "ir/graph.h"
namespace tinyfit::import {
void remove_identities(ir::Graph& graph);
}  // namespace tinyfit::import
