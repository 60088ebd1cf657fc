// The runtime's C sources, embedded in the compiler at build time
// (embed_runtime.cmake), so that `tinyfit compile --emit c` can ship the
// kernels a model uses without a source tree beside the binary.
#pragma once

#include <span>
#include <string_view>

namespace tinyfit::codegen {

struct RuntimeSource {
  std::string_view path;  // relative to runtime/: "include/tinyfit/runtime.h", "kernels/x8_copy.c",
                          // "link/tinyfit_link.h"
  std::string_view text;
};

// Every file of runtime/include, runtime/kernels and runtime/link, plus
// kernels.def, sorted by path.
std::span<const RuntimeSource> list_runtime_sources();

}  // namespace tinyfit::codegen
