// TFLite tensors -> ir::Tensor: element types, shapes, constant payloads and
// quantization parameters, each validated against the file before use.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "import/tflite_schema.h"
#include "ir/tensor.h"
#include "support/diag.h"

namespace tinyfit::import {

// Highest tensor rank we accept (STYLE.md: cap rank); TFLite kernels stop at 6.
inline constexpr size_t kMaxTfliteRank = 8;

// Converts every tensor of `subgraph`, in order, so ir tensor id == TFLite
// tensor index. `file` is the whole model file: buffers of models over 2 GB live
// outside the flatbuffer at a file offset. float16 constants are widened to
// float32 here (TFLite only feeds them to DEQUANTIZE, which import folds);
// a float16 activation is an error.
// Requires: `model` verified by verify_tflite_buffer.
Result<std::vector<ir::Tensor>> convert_tflite_tensors(const tflite::Model& model,
                                                       const tflite::SubGraph& subgraph,
                                                       std::span<const uint8_t> file);

// real = scale * (q - zero_point), per tensor or per channel along quant->axis.
// Requires: a constant i8/u8/i16/i32 tensor with quantization parameters whose
// per-channel count matches its shape (convert_tflite_tensors guarantees it).
std::vector<float> dequantize_constant(const ir::Tensor& tensor);

// A float32 constant holding `values` (little-endian), same name and shape.
ir::Tensor make_f32_constant(std::string name, ir::Shape shape, std::span<const float> values);

// IEEE 754 binary16 -> binary32, exact (subnormals, infinities and NaN kept).
float convert_half_to_float(uint16_t half);

}  // namespace tinyfit::import
