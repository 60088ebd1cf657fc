#include "codegen/device_steps.h"

#include "support/diag.h"

namespace tinyfit::codegen {

int64_t StaticView::count_bytes() const {
  int64_t elements = 1;
  for (int64_t extent : shape) elements *= extent;
  return elements * ir::dtype_size_bytes(dtype);
}

StaticView make_static_view(const plan::Plan& plan, const plan::View& view) {
  TINYFIT_CHECK(view.sweeps.empty()) << "a static view of a view that moves with a loop";
  TINYFIT_CHECK(view.buffer >= 0 && static_cast<size_t>(view.buffer) < plan.buffers.size())
      << "static view of buffer " << view.buffer;
  const plan::PlanBuffer& buffer = plan.buffers[static_cast<size_t>(view.buffer)];
  TINYFIT_CHECK(buffer.offset >= 0) << "static view of unplaced buffer '" << buffer.name << "'";
  StaticView out;
  out.dtype = buffer.dtype;
  out.offset_bytes = buffer.offset + view.offset_elements * ir::dtype_size_bytes(buffer.dtype);
  out.shape = view.shape;
  out.strides = view.strides;
  out.origin.assign(view.shape.size(), 0);
  return out;
}

}  // namespace tinyfit::codegen
