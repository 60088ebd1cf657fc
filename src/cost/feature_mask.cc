#include "cost/feature_mask.h"

namespace tinyfit::cost {
namespace {

// The int8 im2col GEMM kernels (conv2d_im2col_dsp.h): whole, chunk, rows and
// accumulate calls.
bool is_im2col_gemm(std::string_view kernel) {
  return kernel.find("_conv2d_im2col") != std::string_view::npos && kernel.ends_with("__dsp");
}

// The counts of other kernels' loops over pixels and channel pairs: the
// dot-product kernels' (one pixel, two channels, the inputs after steps of
// four one by one) and the window kernel's two paths (conv2d_window_dsp.h).
bool counts_other_pixel_pairs(Feature feature) {
  switch (feature) {
    case Feature::kPairs:
    case Feature::kPairSteps:
    case Feature::kPairTail:
    case Feature::kOddRunPairs:
    case Feature::kOddRunTapRows:
    case Feature::kOddRunWork:
    case Feature::kPixelPairSlots:
    case Feature::kPixelPairWork: return true;
    default: return false;
  }
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

}  // namespace

bool feature_applies(std::string_view kernel, Feature feature) {
  if (counts_window_quads(feature)) return kernel.find("_conv2d_window") != std::string_view::npos;
  if (counts_planar(feature)) return is_planar_depthwise(kernel);
  if (is_planar_depthwise(kernel)) {
    return feature == Feature::kCalls || feature == Feature::kLoopCalls || feature == Feature::kElements ||
           feature == Feature::kClampedElements;
  }
  return !(is_im2col_gemm(kernel) && counts_other_pixel_pairs(feature));
}

FeatureVector mask_features(std::string_view kernel, FeatureVector features) {
  for (int f = 0; f < kFeatureCount; ++f) {
    if (!feature_applies(kernel, static_cast<Feature>(f))) features[static_cast<size_t>(f)] = 0;
  }
  return features;
}

}  // namespace tinyfit::cost
