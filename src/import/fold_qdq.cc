#include "import/fold_qdq.h"
namespace tinyfit::import {
void fold_qdq(ir::Graph& graph) { (void)graph; }
}  // namespace tinyfit::import
