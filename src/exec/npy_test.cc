#include "exec/npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace tinyfit::exec {
namespace {

// numpy 1.x output of np.save(f, np.array([[1, -2, 3]], dtype=np.int8)):
// 10 bytes of preamble + a 118-byte header padded to 128 bytes in total.
std::string make_header_v1(const std::string& dict) {
  std::string header = dict;
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xFF));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header;
}

TEST(Npy, RoundTripPreservesDtypeShapeAndBytes) {
  for (ir::DType dtype : {ir::DType::kF32, ir::DType::kI8, ir::DType::kU8, ir::DType::kI16,
                          ir::DType::kI32, ir::DType::kI64}) {
    TensorData t = TensorData::zeros(dtype, {2, 3, 1});
    for (size_t i = 0; i < t.bytes.size(); ++i) t.bytes[i] = static_cast<uint8_t>(i * 7 + 1);
    const std::string bytes = format_npy(t);
    EXPECT_EQ(bytes.size() % 64, t.bytes.size() % 64) << "header is padded to 64 bytes";
    auto back = parse_npy(bytes, "mem.npy");
    ASSERT_TRUE(back) << back.error().format();
    EXPECT_EQ(back->dtype, dtype);
    EXPECT_EQ(back->shape, t.shape);
    EXPECT_EQ(back->bytes, t.bytes);
  }
}

TEST(Npy, ScalarHasEmptyShapeAndOneElement) {
  std::string bytes = make_header_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (), }");
  const float v = 2.5f;
  bytes.append(reinterpret_cast<const char*>(&v), 4);
  auto t = parse_npy(bytes, "s.npy");
  ASSERT_TRUE(t) << t.error().format();
  EXPECT_TRUE(t->shape.empty());
  EXPECT_EQ(t->values<float>()[0], 2.5f);
}

TEST(Npy, ReadsFileWrittenByNumpyLayout) {
  std::string bytes =
      make_header_v1("{'descr': '|i1', 'fortran_order': False, 'shape': (1, 3), }");
  bytes += std::string("\x01\xFE\x03", 3);
  auto t = parse_npy(bytes, "x.npy");
  ASSERT_TRUE(t) << t.error().format();
  EXPECT_EQ(t->dtype, ir::DType::kI8);
  EXPECT_EQ(t->shape, (ir::Shape{1, 3}));
  EXPECT_EQ(t->values<int8_t>()[1], -2);
}

TEST(Npy, BadMagicIsBadInputNamingTheFile) {
  auto t = parse_npy("NOTNUMPYxxxxxxxx", "bad.npy");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, ExitCode::kBadInput);
  EXPECT_EQ(t.error().file, "bad.npy");
  EXPECT_NE(t.error().message.find("magic"), std::string::npos);
}

TEST(Npy, FortranOrderIsRejected) {
  std::string bytes = make_header_v1("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }");
  bytes.append(4, '\0');
  auto t = parse_npy(bytes, "f.npy");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("fortran"), std::string::npos);
}

TEST(Npy, DataLengthMismatchIsRejected) {
  std::string bytes = make_header_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }");
  bytes.append(12, '\0');  // 2*2*4 = 16 bytes needed
  auto t = parse_npy(bytes, "m.npy");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("needs 16 bytes, file has 12"), std::string::npos)
      << t.error().message;
}

TEST(Npy, BigEndianAndUnknownDtypesAreRejected) {
  for (const char* descr : {">f4", "<f8", "<c8", "O", "<U3"}) {
    std::string bytes = make_header_v1(std::string("{'descr': '") + descr +
                                       "', 'fortran_order': False, 'shape': (1,), }");
    bytes.append(8, '\0');
    auto t = parse_npy(bytes, "d.npy");
    ASSERT_FALSE(t) << descr;
    EXPECT_EQ(t.error().code, ExitCode::kBadInput);
  }
}

TEST(Npy, MalformedHeadersNeverCrash) {
  const char* dicts[] = {
      "",
      "{",
      "{'descr': '<f4'}",
      "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1, }",
      "{'descr: '<f4', 'fortran_order': False, 'shape': (1,), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}",
  };
  for (const char* dict : dicts) {
    std::string bytes = make_header_v1(dict) + std::string(4, '\0');
    auto t = parse_npy(bytes, "h.npy");
    EXPECT_FALSE(t) << dict;
  }
  // Header length pointing beyond the file.
  std::string truncated("\x93NUMPY\x01\x00\xFF\x00{", 11);
  EXPECT_FALSE(parse_npy(truncated, "t.npy"));
  EXPECT_FALSE(parse_npy(std::string("\x93NUMPY", 6), "t.npy"));
  EXPECT_FALSE(parse_npy(std::string("\x93NUMPY\x09\x00\x00\x00", 10), "t.npy"));
}

TEST(Npy, MissingFileIsBadInputNamingThePath) {
  auto t = read_npy("/nonexistent/dir/x.npy");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().file, "/nonexistent/dir/x.npy");
}

TEST(Npy, WriteThenReadFileRoundTrips) {
  const auto path = std::filesystem::temp_directory_path() / "tinyfit_npy_test_roundtrip.npy";
  TensorData t = TensorData::zeros(ir::DType::kF32, {3});
  t.mutable_values<float>()[2] = -1.25f;
  ASSERT_TRUE(write_npy(path.string(), t));
  auto back = read_npy(path.string());
  ASSERT_TRUE(back) << back.error().format();
  EXPECT_EQ(back->values<float>()[2], -1.25f);
  std::filesystem::remove(path);
}

TEST(Npy, ReadsTheSharedGoldenInput) {
  auto t = read_npy(std::string(TINYFIT_MODELS_DIR) + "/golden/mlperf_tiny__ad01_int8.tflite/input.npy");
  ASSERT_TRUE(t) << t.error().format();
  EXPECT_EQ(t->dtype, ir::DType::kI8);
  EXPECT_EQ(t->shape, (ir::Shape{1, 640}));  // meta.json input_shape
}

}  // namespace
}  // namespace tinyfit::exec
