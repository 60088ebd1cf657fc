// Moving a static view's bytes in one device's generated C (issue 14 §5): a
// link transfer becomes calls of tinyfit_link_send / tinyfit_link_recv
// (runtime/link/tinyfit_link.h), a local copy a byte loop, one per
// contiguous run of the view, in the view's row-major element order. The
// link is a byte stream (tinyfit_link.h), so the sender's and the receiver's
// runs need not match: only the element order does, and both sides walk
// their views in the same order.
#pragma once

#include <string>

#include "codegen/device_steps.h"

namespace tinyfit::codegen {

// C99 statements (a block of its own, indented by `indent` spaces) that move
// the view's bytes through the link, `arena` being the arena's uint8_t*, and
// return the link's status from the enclosing function when it is not 0.
std::string make_link_transfer_code(const LinkTransfer& transfer, int indent);

// The same for a copy inside the arena. Requires: equal extents; views that
// share bytes only as one contiguous run each (then copied in the direction
// that reads every byte before it is overwritten, as memmove).
std::string make_local_copy_code(const LocalCopy& copy, int indent);

}  // namespace tinyfit::codegen
