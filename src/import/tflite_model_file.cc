#include "import/tflite_model_file.h"

#include <fstream>

namespace tinyfit::import {

Result<std::vector<uint8_t>> read_tflite_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return fail("cannot open file");
  const std::streamoff size = in.tellg();
  if (size < 0) return fail("cannot read file");
  if (size == 0) return fail("file is empty, expected a TFLite flatbuffer");
  if (size > kMaxTfliteFileBytes) {
    return fail("file has " + std::to_string(size) + " bytes, more than the 2 GiB a flatbuffer can address");
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) return fail("cannot read file");
  return bytes;
}

Result<const tflite::Model*> verify_tflite_buffer(std::span<const uint8_t> bytes) {
  // Root offset (4 bytes) + identifier (4 bytes) is the smallest possible header.
  constexpr size_t kHeaderBytes = 8;
  if (bytes.size() < kHeaderBytes) {
    return fail("file has " + std::to_string(bytes.size()) +
                " bytes, too short for a TFLite flatbuffer (at least 8)");
  }
  if (!tflite::ModelBufferHasIdentifier(bytes.data())) {
    return fail("not a TFLite model: the file identifier is not 'TFL3'");
  }
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!tflite::VerifyModelBuffer(verifier)) {
    return fail("corrupt or truncated TFLite flatbuffer (the flatbuffers verifier rejected it)");
  }
  return tflite::GetModel(bytes.data());
}

}  // namespace tinyfit::import
