#include "codegen/link_transfer.h"

#include <sstream>
#include <vector>

#include "codegen/c_source.h"
#include "support/diag.h"

namespace tinyfit::codegen {
namespace {

// How a view splits into runs: the innermost axes that are dense form one run
// of `run_elements`; the other axes with more than one element are loops.
struct Runs {
  std::vector<int> loop_axes;
  int64_t run_elements = 1;
};

Runs find_runs(const StaticView& view) {
  TINYFIT_CHECK(view.shape.size() == view.strides.size()) << "static view of rank " << view.shape.size()
                                                          << " with " << view.strides.size() << " strides";
  Runs runs;
  int run_axis = static_cast<int>(view.shape.size());
  while (run_axis > 0) {
    const auto a = static_cast<size_t>(run_axis - 1);
    TINYFIT_CHECK(view.shape[a] >= 0 && view.strides[a] >= 0) << "static view with a negative extent or stride";
    if (view.shape[a] != 1 && view.strides[a] != runs.run_elements) break;
    runs.run_elements *= view.shape[a];
    --run_axis;
  }
  for (int a = 0; a < run_axis; ++a) {
    if (view.shape[static_cast<size_t>(a)] > 1) runs.loop_axes.push_back(a);
  }
  return runs;
}

// "arena + 64 + i0 * 128 + i1 * 16": the first byte of the run at the loop
// indices i0, i1, ... over `loop_axes`.
std::string make_run_address(const StaticView& view, const std::vector<int>& loop_axes) {
  const int64_t element_bytes = ir::dtype_size_bytes(view.dtype);
  std::string address = "arena + " + std::to_string(view.offset_bytes);
  for (size_t i = 0; i < loop_axes.size(); ++i) {
    address += " + i" + std::to_string(i) + " * " +
               std::to_string(view.strides[static_cast<size_t>(loop_axes[i])] * element_bytes);
  }
  return address;
}

// Loops over `loop_axes` around `statements` (each one line, without indent).
std::string wrap_in_loops(const StaticView& view, const std::vector<int>& loop_axes,
                          const std::vector<std::string>& statements, const std::string& locals, int indent) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::ostringstream out;
  out << pad << "{\n" << locals;
  if (!loop_axes.empty()) {
    out << pad << "  int32_t ";
    for (size_t i = 0; i < loop_axes.size(); ++i) out << (i ? ", " : "") << "i" << i;
    out << ";\n";
  }
  std::string inner = pad + "  ";
  for (size_t i = 0; i < loop_axes.size(); ++i) {
    const std::string index = "i" + std::to_string(i);
    out << inner << "for (" << index << " = 0; " << index << " < " << view.shape[static_cast<size_t>(loop_axes[i])]
        << "; ++" << index << ") {\n";
    inner += "  ";
  }
  for (const std::string& statement : statements) out << inner << statement << "\n";
  for (size_t i = loop_axes.size(); i > 0; --i) {
    inner.resize(inner.size() - 2);
    out << inner << "}\n";
  }
  out << pad << "}\n";
  return out.str();
}

}  // namespace

std::string make_link_transfer_code(const LinkTransfer& transfer, int indent) {
  const bool send = transfer.direction == LinkDirection::kSend;
  const std::string pad(static_cast<size_t>(indent), ' ');
  const int64_t bytes = transfer.view.count_bytes();
  std::ostringstream out;
  out << pad << "/* link: " << (send ? "send " : "receive ") << make_c_comment_text(transfer.label) << " ("
      << bytes << " bytes) " << (send ? "to" : "from") << " device " << transfer.peer << " */\n";
  if (bytes == 0) return out.str();
  const Runs runs = find_runs(transfer.view);
  const int64_t run_bytes = runs.run_elements * ir::dtype_size_bytes(transfer.view.dtype);
  const std::string call = std::string("status = ") + (send ? "tinyfit_link_send(" : "tinyfit_link_recv(") +
                           std::to_string(transfer.peer) + ", " + make_run_address(transfer.view, runs.loop_axes) +
                           ", " + std::to_string(run_bytes) + "u);";
  out << wrap_in_loops(transfer.view, runs.loop_axes, {call, "if (status != 0) return status;"},
                       pad + "  int status;\n", indent);
  return out.str();
}

std::string make_local_copy_code(const LocalCopy& copy, int indent) {
  TINYFIT_CHECK(copy.from.shape == copy.to.shape && copy.from.dtype == copy.to.dtype)
      << "local copy between views of different extents";
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::ostringstream out;
  out << pad << "/* copy " << make_c_comment_text(copy.label) << " (" << copy.to.count_bytes() << " bytes) */\n";
  if (copy.to.count_bytes() == 0) return out.str();
  // Runs both views share: the smaller of the two.
  const Runs from = find_runs(copy.from), to = find_runs(copy.to);
  const Runs& runs = from.run_elements <= to.run_elements ? from : to;
  const int64_t run_bytes = runs.run_elements * ir::dtype_size_bytes(copy.to.dtype);
  // Every axis outside the shared run walks both views.
  std::vector<int> loop_axes;
  int64_t inner = 1;
  int run_axis = static_cast<int>(copy.to.shape.size());
  while (run_axis > 0 && inner * copy.to.shape[static_cast<size_t>(run_axis - 1)] <= runs.run_elements) {
    inner *= copy.to.shape[static_cast<size_t>(run_axis - 1)];
    --run_axis;
  }
  for (int a = 0; a < run_axis; ++a) {
    if (copy.to.shape[static_cast<size_t>(a)] > 1) loop_axes.push_back(a);
  }
  // One run whose destination starts inside it, after its source (a move
  // within the arena: --partition rows' device 0 moves its band's rows into
  // the tail's input) is copied from its end, so no byte is overwritten
  // before it is read.
  const bool backwards = loop_axes.empty() && copy.to.offset_bytes > copy.from.offset_bytes &&
                         copy.to.offset_bytes < copy.from.offset_bytes + run_bytes;
  const std::string loop = backwards ? "for (k = " + std::to_string(run_bytes) + "; k > 0; --k) to[k - 1] = from[k - 1];"
                                     : "for (k = 0; k < " + std::to_string(run_bytes) + "; ++k) to[k] = from[k];";
  const std::string statement = "{ uint8_t* const to = " + make_run_address(copy.to, loop_axes) +
                                "; const uint8_t* const from = " + make_run_address(copy.from, loop_axes) +
                                "; int32_t k; " + loop + " }";
  out << wrap_in_loops(copy.to, loop_axes, {statement}, "", indent);
  return out.str();
}

}  // namespace tinyfit::codegen
