#include "exec/bind_output_clamp.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <string>

#include "exec/c_literals.h"
#include "tinyfit/elementwise.h"

namespace tinyfit::exec {
namespace {

constexpr std::string_view kHeader = "tinyfit/elementwise.h";

class ByteClampKernel final : public PreparedKernel {
 public:
  explicit ByteClampKernel(const std::array<uint8_t, 256>& table) : table_(table) {}
  std::string_view kernel_name() const override { return "tf_x8_lut"; }
  void run(const KernelViews& views) const override {
    tf_x8_lut(&views.outputs[0], &views.outputs[0], table_.data());
  }
  Status emit(CallEmitter& emitter) const override {
    const std::string table = emitter.define_array("uint8_t", "clamp_table", table_);
    emitter.call(kHeader, "tf_x8_lut", {emitter.output_view(0), emitter.output_view(0), table});
    return {};
  }

 private:
  std::array<uint8_t, 256> table_;
};

class FloatClampKernel final : public PreparedKernel {
 public:
  explicit FloatClampKernel(const tf_f32_clamp_params& params) : params_(params) {}
  std::string_view kernel_name() const override { return "tf_f32_clip_direct"; }
  void run(const KernelViews& views) const override {
    tf_f32_clip_direct(&views.outputs[0], &views.outputs[0], &params_);
  }
  Status emit(CallEmitter& emitter) const override {
    const std::string params = emitter.define_struct(
        "tf_f32_clamp_params", "clamp",
        {{"output_min", format_c_float(params_.output_min)}, {"output_max", format_c_float(params_.output_max)}});
    emitter.call(kHeader, "tf_f32_clip_direct", {emitter.output_view(0), emitter.output_view(0), "&" + params});
    return {};
  }

 private:
  tf_f32_clamp_params params_;
};

}  // namespace

std::unique_ptr<PreparedKernel> make_output_clamp_kernel(const ir::Tensor& output,
                                                         const ir::FusedActivation& activation,
                                                         const reference::TensorQuant& quant) {
  if (output.dtype == ir::DType::kF32) {
    // Generated code spells no infinity: an open side clamps at the largest
    // float, which differs only for an output that is already infinite.
    return std::make_unique<FloatClampKernel>(
        tf_f32_clamp_params{std::max(activation.min, -FLT_MAX), std::min(activation.max, FLT_MAX)});
  }
  const reference::ActivationRange range =
      reference::compute_activation_range_quantized(activation, output.dtype, quant.scale, quant.zero_point);
  std::array<uint8_t, 256> table{};
  for (int b = 0; b < 256; ++b) {
    const int32_t value = output.dtype == ir::DType::kI8 ? static_cast<int8_t>(b) : b;
    table[static_cast<size_t>(b)] = static_cast<uint8_t>(std::clamp(value, range.min, range.max));
  }
  return std::make_unique<ByteClampKernel>(table);
}

}  // namespace tinyfit::exec
