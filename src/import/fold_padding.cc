#include "import/fold_padding.h"
namespace tinyfit::import {
void fold_padding(ir::Graph& graph) { (void)graph; }
}  // namespace tinyfit::import
