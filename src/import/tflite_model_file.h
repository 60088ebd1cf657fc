// The bytes of a .tflite file and the verified flatbuffer root inside them.
// Nothing is read from the buffer before the flatbuffers Verifier has accepted
// it (STYLE.md, tier 1): random bytes or a truncated file give a Diag, never a
// read past the end.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "import/tflite_schema.h"
#include "support/diag.h"

namespace tinyfit::import {

// Largest file we read: flatbuffers offsets are 32-bit, so a flatbuffer cannot
// exceed 2 GiB anyway.
inline constexpr int64_t kMaxTfliteFileBytes = (int64_t{1} << 31) - 1;

Result<std::vector<uint8_t>> read_tflite_bytes(const std::string& path);

// Checks the "TFL3" identifier and runs the flatbuffers Verifier over the
// whole buffer. The returned pointer points into `bytes`.
Result<const tflite::Model*> verify_tflite_buffer(std::span<const uint8_t> bytes);

}  // namespace tinyfit::import
