#include "exec/reference_interpreter.h"

namespace tinyfit::exec {

TensorData make_golden_input(ir::DType dtype, const ir::Shape& shape, uint32_t seed) {
  TensorData t = TensorData::zeros(dtype, shape);
  uint64_t x = seed;
  const int64_t n = t.num_elements();
  for (int64_t k = 0; k < n; ++k) {
    x = (1103515245ull * x + 12345ull) % (1ull << 31);
    const auto byte = static_cast<uint8_t>((x >> 16) & 0xFF);
    switch (dtype) {
      case ir::DType::kI8: t.mutable_values<int8_t>()[k] = static_cast<int8_t>(byte); break;
      case ir::DType::kU8: t.mutable_values<uint8_t>()[k] = byte; break;
      case ir::DType::kF32: t.mutable_values<float>()[k] = static_cast<float>(byte) / 255.0f; break;
      case ir::DType::kI16:
        t.mutable_values<int16_t>()[k] = static_cast<int16_t>(static_cast<int8_t>(byte));
        break;
      default: TINYFIT_CHECK(false) << "no golden input for dtype " << ir::dtype_name(dtype);
    }
  }
  return t;
}

}  // namespace tinyfit::exec
