// Test support: a check that the emitted call is the one run() makes: the
// same function, its header exists, the views and constants in the right
// places (tests/support/recording_emitter.h), and the constant argument's bytes as generated code defines them (a table's bytes;
// a struct's fields, all 4-byte ints or floats, read back from their C
// literals in declaration order) equal to the bytes run() passes.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <limits>
#include <optional>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "support/channelwise_binding_check.h"
#include "exec/bind_view_calls.h"
#include "exec/kernel_call.h"
#include "support/recording_emitter.h"
#include "tinyfit/elementwise.h"
#include "tinyfit/pool.h"

namespace tinyfit::exec::emit_test {

using testing::RecordingEmitter;

// Sizes of the parameter structs the bindings define.
inline const std::map<std::string, size_t>& struct_sizes() {
  static const std::map<std::string, size_t> sizes = {
      {"tf_quantized_add_params", sizeof(tf_quantized_add_params)},
      {"tf_quantized_mul_params", sizeof(tf_quantized_mul_params)},
      {"tf_f32_clamp_params", sizeof(tf_f32_clamp_params)},
      {"tf_quantize_params", sizeof(tf_quantize_params)},
      {"tf_quantized_pool_params", sizeof(tf_quantized_pool_params)},
      {"tf_f32_pool_params", sizeof(tf_f32_pool_params)},
      {"tf_quantized_mean_params", sizeof(tf_quantized_mean_params)},
      {"tf_f32_mean_params", sizeof(tf_f32_mean_params)},
  };
  return sizes;
}

// The 4 bytes of a C int32 or float literal as the bindings spell them, or
// nothing when it does not read back.
inline std::optional<std::array<uint8_t, 4>> read_literal(const std::string& literal) {
  std::array<uint8_t, 4> bytes{};
  const auto store = [&](auto value) {
    static_assert(sizeof value == 4);
    std::memcpy(bytes.data(), &value, 4);
    return bytes;
  };
  if (literal == "INFINITY") return store(std::numeric_limits<float>::infinity());
  if (literal == "-INFINITY") return store(-std::numeric_limits<float>::infinity());
  if (literal == "(-2147483647 - 1)") return store(std::numeric_limits<int32_t>::min());
  char* end = nullptr;
  errno = 0;
  if (literal.find_first_of(".px") != std::string::npos) {
    const float value = std::strtof(literal.c_str(), &end);
    if (errno != 0 || end == nullptr || std::string(end) != "f") return std::nullopt;
    return store(value);
  }
  const long value = std::strtol(literal.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0' || value < INT32_MIN || value > INT32_MAX) return std::nullopt;
  return store(static_cast<int32_t>(value));
}

inline void expect_emits_call(const ir::Graph& graph, const plan::Plan& plan, const plan::KernelCall& call) {
  auto kernel = prepare_kernel(KernelCallContext{graph, plan, call});
  ASSERT_TRUE(kernel.has_value()) << kernel.error().format();
  RecordingEmitter emitter;
  const Status status = (*kernel)->emit(emitter);
  ASSERT_TRUE(status.has_value()) << status.error().format();
  ASSERT_EQ(emitter.calls.size(), 1u);
  const RecordingEmitter::Call& emitted_call = emitter.calls[0];
  EXPECT_EQ(emitted_call.function, (*kernel)->kernel_name());
  EXPECT_TRUE(std::filesystem::exists(std::string(TINYFIT_SOURCE_DIR) + "/runtime/include/" + emitted_call.header))
      << emitted_call.header;
  ASSERT_GE(emitted_call.arguments.size(), 3u);
  // The output view sits just before the constant argument.
  EXPECT_EQ(emitted_call.arguments[emitted_call.arguments.size() - 2], "&out0");
  size_t constants = 0;
  for (const std::string& argument : emitted_call.arguments) {
    if (argument.rfind("&struct", 0) == 0 || argument.rfind("array", 0) == 0) ++constants;
  }
  EXPECT_EQ(constants, 1u) << "one parameter struct or table, passed last";
  // The constant argument: what generated code holds in flash.
  const std::string& constant = emitted_call.arguments.back();
  std::vector<uint8_t> emitted;
  if (constant.rfind("&struct", 0) == 0) {
    const RecordingEmitter::Struct& s = emitter.struct_of(constant);
    ASSERT_TRUE(struct_sizes().contains(s.c_type)) << s.c_type;
    EXPECT_EQ(s.fields.size() * 4, struct_sizes().at(s.c_type)) << s.c_type << ": a field is not emitted";
    for (const auto& [field, value] : s.fields) {
      const auto bytes = read_literal(value);
      ASSERT_TRUE(bytes.has_value()) << field << " = " << value;
      emitted.insert(emitted.end(), bytes->begin(), bytes->end());
    }
  } else {
    const RecordingEmitter::Array& a = emitter.arrays.at(constant);
    EXPECT_TRUE(a.c_type == "float" || a.c_type == "uint8_t") << a.c_type;
    emitted = a.bytes;
  }
  const auto* holder = dynamic_cast<const HoldsFlashConstant*>(kernel->get());
  ASSERT_NE(holder, nullptr) << emitted_call.function;
  const std::span<const uint8_t> run_bytes = holder->constant_bytes();
  EXPECT_TRUE(std::equal(emitted.begin(), emitted.end(), run_bytes.begin(), run_bytes.end()))
      << emitted_call.function << ": the emitted constant differs from the one run() passes";
  // A constant operand sliced by the chunk names the chunk in its view.
  for (const std::string& argument : emitted_call.arguments) {
    if (argument.rfind("&(tf_view)", 0) != 0) continue;
    const bool sliced = argument.find("chunk_begin") != std::string::npos;
    EXPECT_EQ(sliced, argument.find("chunk_end") != std::string::npos) << argument;
  }
}

// Checks the operator plan's call and, for a channel-wise node, a loop call.
inline void expect_emits_call_of_run(const kernel_oracle::OracleCase& c) {
  SCOPED_TRACE(kernel_oracle::describe_case(c));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(c.graph);
  const plan::Plan whole = plan::build_operator_plan(c.graph, bg, analysis::given_order(bg));
  expect_emits_call(c.graph, whole, whole.steps.at(0).call());
  const ir::Node& node = c.graph.nodes.at(0);
  if (ir::op_decl(node.op).kind(c.graph, node) != ir::OpKind::kChannelwise) return;
  const plan::Plan looped = channelwise_test::build_channel_loop_plan(c.graph, std::min<int64_t>(2, channelwise_test::count_channels(c.graph)));
  expect_emits_call(c.graph, looped, looped.steps.at(0).loop().body.at(0).call());
}

}  // namespace tinyfit::exec::emit_test
