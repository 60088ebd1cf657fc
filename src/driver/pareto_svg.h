// `tinyfit pareto --svg FILE`: the frontier as a chart, arena (KiB) across,
// predicted instructions up, one dot per point joined as a staircase (every
// arena between two points runs at the slower one's speed), each dot labelled
// with its base plan and how many convolutions got a workspace.
#pragma once

#include <string>

#include "driver/pareto.h"

namespace tinyfit::driver {

// A standalone SVG document (960x540 user units); deterministic; text
// XML-escaped; an empty frontier draws the axes only.
std::string render_pareto_svg(const ParetoReport& report);

}  // namespace tinyfit::driver
