#include "import/drop_io_quantization.h"
namespace tinyfit::import {
void drop_io_quantization(ir::Graph& graph) { (void)graph; }
}  // namespace tinyfit::import
