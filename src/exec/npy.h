// NumPy .npy files (format versions 1.0, 2.0 and 3.0): how golden inputs and
// outputs, and the numpy oracles' data, reach the reference interpreter.
//
// Only what we need: little-endian, C order, dtypes f4 i1 u1 i2 i4 i8 (and b1
// for bool). Anything else, and every malformed header, is a user error
// (ExitCode::kBadInput) naming the file: .npy files are untrusted input.
#pragma once

#include <string>

#include "exec/tensor_data.h"
#include "support/diag.h"

namespace tinyfit::exec {

// Reads a whole .npy file. Requires: nothing (any byte sequence is handled).
// Guarantees: on success, bytes.size() == num_elements * dtype size.
Result<TensorData> read_npy(const std::string& path);

// Writes `tensor` as a version 1.0 .npy file (C order, little-endian).
Status write_npy(const std::string& path, const TensorData& tensor);

// The same, from and to memory (tests and fuzzers); `name` labels errors.
Result<TensorData> parse_npy(const std::string& bytes, const std::string& name);
std::string format_npy(const TensorData& tensor);

}  // namespace tinyfit::exec
