// Which call features a kernel's row may use. The fit (fit_cost_table.h)
// gives each kernel a weight for every count of call_features.h, so a count
// that describes another kernel's loops can stand in for work the row's own
// counts describe less well, and then extrapolates badly on the calls where
// the two part: the im2col GEMM kernels group three pixels by two channels
// (kGemmGroups .. kGemmLoneGroups), yet their rows leaned on the dot-product
// kernels' per-pixel pairs (kPairs .. kPairTail: one pixel, two channels,
// the inputs left over after steps of four one by one, which the GEMM never
// runs: it rounds K up to words of four), on the window kernel's paths
// (kOddRunPairs .. kPixelPairWork) and on the depthwise kernels' interior and
// border counts (a 14-16% rms fit that over-predicted MobileNetV2-224's 1x1
// calls by 3% and its stem by 17%). Their rows now use only their own loops'
// counts (feature_mask.cc applies_to_im2col_gemm), the two gather paths'
// among them (kGemmRunGroups .. kGemmStagedElements, no other row's).
// The window kernel's four-pixel path (kQuadRows .. kQuadStepRows) is its
// own: no other kernel's row may use it. The planar depthwise kernel's
// counts (kPlanarFillRows .. kPlanarPairs) are its own too, and its row uses
// nothing else but the calls, the written and the clamped elements: fitted
// with dwconv2d_dsp.h's counts it over-predicted vww_96's 48x48x8 layer by
// 29% (681,721 against 526,800 measured) and lost it to the slower kernel.
#pragma once

#include <string_view>

#include "cost/call_features.h"

namespace tinyfit::cost {

// Whether the fit may give `kernel` (a runtime/kernels.def name) a weight
// for `feature`.
bool feature_applies(std::string_view kernel, Feature feature);

// `features` with the counts `kernel` may not use set to 0 (what the fit
// solves over: a zero column gets no weight).
FeatureVector mask_features(std::string_view kernel, FeatureVector features);

}  // namespace tinyfit::cost
