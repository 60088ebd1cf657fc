// Placeholder until this family's runtime kernels land: every call reports
// that no kernel exists yet (exit 2), never a fake result.
#include "exec/kernel_call.h"

namespace tinyfit::exec {

Result<std::unique_ptr<PreparedKernel>> prepare_normalization_kernel(const KernelCallContext& context) {
  return fail_no_kernel(context, "this operator yet");
}

}  // namespace tinyfit::exec
