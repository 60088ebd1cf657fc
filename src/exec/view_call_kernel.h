// A prepared kernel made of runtime calls of one shape,
// function(input view, output view, &params): the data-movement and
// normalisation kernels (one call for most operators; one per input of a
// Concat, one per output of a Split). run() and emit() walk the same list, so
// generated code makes exactly the calls the plan executor made.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "exec/kernel_call.h"

namespace tinyfit::exec {

// Field values of a parameter struct for CallEmitter::define_struct; may
// define arrays the struct points to (a lookup table).
template <typename Params>
using DescribeParams = std::vector<std::pair<std::string, std::string>> (*)(const Params& params,
                                                                              CallEmitter& emitter);

template <typename Params>
class ViewCallKernel final : public PreparedKernel {
 public:
  using Function = void (*)(const tf_view* input, const tf_view* output, const Params* params);
  struct Call {
    size_t input = 0;   // index into KernelViews::inputs
    size_t output = 0;  // index into KernelViews::outputs
    Params params{};
  };
  struct Kernel {
    std::string_view name;         // "tf_x8_slice"
    std::string_view header;       // "tinyfit/data_movement.h"
    std::string_view params_type;  // "tf_slice_params"
    Function function = nullptr;
    DescribeParams<Params> describe = nullptr;
  };

  // `tables` owns whatever the params point to (their addresses stay put
  // when the vectors are moved in).
  ViewCallKernel(const Kernel& kernel, std::vector<Call> calls, std::vector<std::vector<int32_t>> tables = {})
      : kernel_(kernel), calls_(std::move(calls)), tables_(std::move(tables)) {}

  std::string_view kernel_name() const override { return kernel_.name; }

  void run(const KernelViews& views) const override {
    for (const Call& call : calls_) {
      kernel_.function(&views.inputs[call.input], &views.outputs[call.output], &call.params);
    }
  }

  Status emit(CallEmitter& emitter) const override {
    for (const Call& call : calls_) {
      const std::string params =
          emitter.define_struct(kernel_.params_type, "params", kernel_.describe(call.params, emitter));
      emitter.call(kernel_.header, kernel_.name,
                   {emitter.input_view(call.input), emitter.output_view(call.output), "&" + params});
    }
    return {};
  }

 private:
  Kernel kernel_;
  std::vector<Call> calls_;
  std::vector<std::vector<int32_t>> tables_;
};

// The common case: one call, from input view 0 to output view 0.
template <typename Params>
std::unique_ptr<PreparedKernel> make_single_call_kernel(const typename ViewCallKernel<Params>::Kernel& kernel,
                                                        const Params& params,
                                                        std::vector<std::vector<int32_t>> tables = {}) {
  using Call = typename ViewCallKernel<Params>::Call;
  return std::make_unique<ViewCallKernel<Params>>(kernel, std::vector<Call>{{0, 0, params}}, std::move(tables));
}

// Several prepared kernels run one after the other as one call (a Concat whose
// inputs need different kernels).
class KernelSequence final : public PreparedKernel {
 public:
  // No parts: a call with nothing to run (a Concat whose inputs were all
  // written in place).
  explicit KernelSequence(std::vector<std::unique_ptr<PreparedKernel>> parts) : parts_(std::move(parts)) {}
  std::string_view kernel_name() const override { return parts_.empty() ? "none" : parts_.front()->kernel_name(); }
  void run(const KernelViews& views) const override {
    for (const auto& part : parts_) part->run(views);
  }
  Status emit(CallEmitter& emitter) const override {
    for (const auto& part : parts_) TINYFIT_RETURN_IF_ERROR(part->emit(emitter));
    return {};
  }

 private:
  std::vector<std::unique_ptr<PreparedKernel>> parts_;
};

// --- tf_view axes ----------------------------------------------------------
// A tensor of rank r <= 4 is a tf_view padded on the left with r - 4 axes of
// extent 1 (make_tf_view), so its axis a is view axis a + 4 - r.

inline int to_view_axis(int axis, size_t rank) { return axis + 4 - static_cast<int>(rank); }

// Per-axis values of a rank-r tensor spread over the four view axes, `fill`
// on the padded ones.
inline std::array<int32_t, 4> to_view_axes(const std::vector<int64_t>& values, int32_t fill) {
  std::array<int32_t, 4> out{fill, fill, fill, fill};
  const size_t pad = 4 - values.size();
  for (size_t a = 0; a < values.size(); ++a) out[pad + a] = static_cast<int32_t>(values[a]);
  return out;
}

// Fails (not built yet, exit 2) when a tensor of the node has rank above 4.
Status check_view_ranks(const KernelCallContext& context);

// The call's mode is kWhole, or kChunk for a channel-wise node (the same call
// on the chunk's views); any other mode is not built (exit 2).
Status check_whole_or_channel_chunk(const KernelCallContext& context);

}  // namespace tinyfit::exec
