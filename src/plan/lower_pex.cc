#include "plan/lower_pex.h"

namespace tinyfit::plan {

// Placeholder until the PEX scheduler lands: says so (exit 2), no fake plan.
Result<PexResult> build_pex_plan(const ir::Graph& graph, const PexOptions& /*options*/) {
  return fail(graph.source_path + ": partial execution (pex) is not built yet", ExitCode::kBadCommandLine);
}

}  // namespace tinyfit::plan
