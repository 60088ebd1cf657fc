// The output zero point folded into the __dsp kernels' requantisation records
// (fold-requant; tinyfit/requantize.h's tf_requant_folded), so that their
// inner loops add neither the zero point nor a masked sign term per value.
//
// What: for each channel's record (requant, as ConvConstants::pack_for makes
// it), the record whose tf_requantize_folded(acc) equals tf_requantize(acc) +
// output_zero_point for every accumulator the record's requirement admits.
// Channels with right shift 1..22 keep multiplier and left shift (addend
// 2^(e-1) + z * 2^e); a dead channel (multiplier 0, or absolute weight sum 0,
// whose accumulator is its bias) becomes the constant z + its output.
// Requires: requant, absolute_sums and bias of one length (the node's output
// channels); every record meets requantize.h's requirement.
// Guarantees: nullopt when some channel has no such record (a right shift of
// 0 or over 22 on a live channel): kernels then read the plain records.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tinyfit/requantize.h"

namespace tinyfit::exec {

std::optional<std::vector<tf_requant_folded>> fold_requantization(std::span<const tf_requant_channel> requant,
                                                                  std::span<const int64_t> absolute_sums,
                                                                  std::span<const int32_t> bias,
                                                                  int32_t output_zero_point);

}  // namespace tinyfit::exec
