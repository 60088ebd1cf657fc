#include "cost/feature_mask.h"

namespace tinyfit::cost {
namespace {

// The int8 im2col GEMM kernels (conv2d_im2col_dsp.h): whole, chunk, rows and
// accumulate calls.
bool is_im2col_gemm(std::string_view kernel) {
  return kernel.find("_conv2d_im2col") != std::string_view::npos && kernel.ends_with("__dsp");
}

// The window kernel's four-pixel path (conv2d_window_dsp.h window_dsp_channel9),
// which no other kernel has.
bool counts_window_quads(Feature feature) {
  return feature == Feature::kQuadRows || feature == Feature::kQuadSteps || feature == Feature::kQuadStepRows;
}

// The planar depthwise kernel's loops (dwconv2d_planar_dsp.h).
bool counts_planar(Feature feature) {
  return feature >= Feature::kPlanarFillRows && feature <= Feature::kPlanarPairs;
}

bool is_planar_depthwise(std::string_view kernel) {
  return kernel.find("_dwconv2d_planar") != std::string_view::npos;
}

// The im2col GEMM's own counts (call_features.h kGemmRunGroups ..
// kGemmStagedElements), which describe no other kernel's loops.
bool counts_gemm_paths(Feature feature) {
  return feature >= Feature::kGemmRunGroups && feature <= Feature::kGemmStagedElements;
}

// What the im2col GEMM kernels' loops do: the call, its rows and stores,
// the patch's padding, the paths' pixel groups and gathers, the dense
// pointwise path, the dot products. The counts of other kernels' paths (the
// depthwise kernels' interior and border, the dot-product kernels' pairs)
// would let a fit stand one loop's cost in for another's.
bool applies_to_im2col_gemm(Feature feature) {
  switch (feature) {
    case Feature::kCalls:
    case Feature::kLoopCalls:
    case Feature::kRows:
    case Feature::kElements:
    case Feature::kClampedElements:
    case Feature::kPaddedPatch:
    case Feature::kGemmPairGroups:
    case Feature::kGatherWords:
    case Feature::kPointwiseGroups:
    case Feature::kGemmDotSteps:
    case Feature::kGemmOddDots:
    case Feature::kGemmLoneGroups: return true;
    default: return counts_gemm_paths(feature);
  }
}

}  // namespace

bool feature_applies(std::string_view kernel, Feature feature) {
  if (is_im2col_gemm(kernel)) return applies_to_im2col_gemm(feature);
  if (counts_gemm_paths(feature)) return false;
  if (counts_window_quads(feature)) return kernel.find("_conv2d_window") != std::string_view::npos;
  if (counts_planar(feature)) return is_planar_depthwise(kernel);
  if (is_planar_depthwise(kernel)) {
    return feature == Feature::kCalls || feature == Feature::kLoopCalls || feature == Feature::kElements ||
           feature == Feature::kClampedElements;
  }
  return true;
}

FeatureVector mask_features(std::string_view kernel, FeatureVector features) {
  for (int f = 0; f < kFeatureCount; ++f) {
    if (!feature_applies(kernel, static_cast<Feature>(f))) features[static_cast<size_t>(f)] = 0;
  }
  return features;
}

}  // namespace tinyfit::cost
