#include "import/remove_identities.h"
namespace tinyfit::import {
void remove_identities(ir::Graph& graph) { (void)graph; }
}  // namespace tinyfit::import
