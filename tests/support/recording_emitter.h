// Test support: a CallEmitter that records what a prepared kernel's emit()
// produces instead of writing C, so tests can compare the emitted call with
// the one run() makes.
//
// Names it hands out: views "&in<i>" / "&out<i>"; the chunk "chunk_begin" /
// "chunk_end"; the first-iteration flag "first"; constants "array<n>_<hint>"
// and "struct<n>_<hint>" (n counts definitions of that kind), so a test can
// tell a constant argument ("&struct...", "array...") from a view.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exec/kernel_call.h"

namespace tinyfit::exec::testing {

class RecordingEmitter final : public CallEmitter {
 public:
  using Fields = std::vector<std::pair<std::string, std::string>>;
  struct Array {
    std::string c_type;
    std::vector<uint8_t> bytes;
  };
  struct Struct {
    std::string c_type;
    Fields fields;  // in declaration order
  };
  struct Call {
    std::string header, function;
    std::vector<std::string> arguments;
  };

  std::map<std::string, Array> arrays;    // by the name define_array returned
  std::map<std::string, Struct> structs;  // by the name define_struct returned
  std::vector<Call> calls;                // in emission order

  std::string define_array(std::string_view element_c_type, std::string_view hint,
                           std::span<const uint8_t> bytes) override {
    const std::string name = "array" + std::to_string(arrays.size()) + "_" + std::string(hint);
    arrays[name] = {std::string(element_c_type), {bytes.begin(), bytes.end()}};
    return name;
  }
  std::string define_struct(std::string_view struct_c_type, std::string_view hint, const Fields& fields) override {
    const std::string name = "struct" + std::to_string(structs.size()) + "_" + std::string(hint);
    structs[name] = {std::string(struct_c_type), fields};
    return name;
  }
  std::string input_view(size_t i) const override { return "&in" + std::to_string(i); }
  std::string output_view(size_t i) const override { return "&out" + std::to_string(i); }
  std::string workspace() const override { return "NULL"; }
  std::string workspace_bytes() const override { return "0"; }
  std::string chunk_begin() const override { return "chunk_begin"; }
  std::string chunk_end() const override { return "chunk_end"; }
  std::string first_iteration() const override { return "first"; }
  void call(std::string_view header, std::string_view function, const std::vector<std::string>& arguments) override {
    calls.push_back({std::string(header), std::string(function), arguments});
  }

  // The struct an argument "&struct<n>_<hint>" points to (throws std::out_of_range
  // for any other argument, which fails the test that asked).
  const Struct& struct_of(const std::string& argument) const { return structs.at(argument.substr(1)); }
  const Fields& fields_of(const std::string& argument) const { return struct_of(argument).fields; }
  // One field's C expression, or "" when the struct has no such field.
  std::string field_of(const std::string& argument, std::string_view field) const {
    for (const auto& [name, value] : fields_of(argument)) {
      if (name == field) return value;
    }
    return "";
  }
};

}  // namespace tinyfit::exec::testing
