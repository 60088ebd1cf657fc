#include "test_program.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/c_source.h"

namespace tinyfit::mcu {
namespace {

std::string make_main_source(const codegen::EmittedModel& model, const std::vector<exec::TensorData>& inputs,
                             const std::vector<exec::TensorData>& outputs) {
  std::ostringstream out;
  out << "/* Test program for " << model.prefix << ": fixed inputs, one inference, outputs in hex. */\n"
      << "#include \"board.h\"\n#include \"model.h\"\n\n";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string_view type = codegen::c_element_type(inputs[i].dtype);
    out << "static const " << type << " input" << i << "[] = "
        << codegen::format_array_initializer(type, inputs[i].bytes) << ";\n\n";
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string_view type = codegen::c_element_type(outputs[i].dtype);
    const auto elements = outputs[i].bytes.size() / static_cast<size_t>(ir::dtype_size_bytes(outputs[i].dtype));
    out << "static " << type << " output" << i << "[" << elements << "];\n";
  }
  out << "\nint main(void) {\n  uint64_t ticks;\n  board_counter_start();\n  (void)" << model.prefix << "_run(";
  for (size_t i = 0; i < inputs.size(); ++i) out << (i ? ", " : "") << "input" << i;
  for (size_t i = 0; i < outputs.size(); ++i) out << (i + inputs.size() ? ", " : "") << "output" << i;
  out << ");\n  ticks = board_counter_read();\n";
  for (size_t i = 0; i < outputs.size(); ++i) {
    out << "  board_write(\"output" << i << " \");\n  board_write_hex(output" << i << ", sizeof output" << i
        << ");\n";
  }
  out << "  board_write(\"instructions \");\n  board_write_u64(ticks * BOARD_INSTRUCTIONS_PER_TICK);\n"
      << "  board_write(\"stack_bytes \");\n  board_write_u64(board_stack_high_water_bytes());\n"
      << "  return 0;\n}\n";
  return out.str();
}

}  // namespace

Result<TestProgram> write_test_program(const codegen::EmittedModel& model,
                                       const std::vector<exec::TensorData>& inputs,
                                       const std::vector<exec::TensorData>& outputs, const std::string& directory) {
  namespace fs = std::filesystem;
  TINYFIT_RETURN_IF_ERROR(codegen::write_emitted_model(model, directory));
  const fs::path root = fs::absolute(directory);
  const fs::path main_path = root / "main.c";
  std::ofstream(main_path, std::ios::binary) << make_main_source(model, inputs, outputs);
  if (!fs::exists(main_path)) return fail(main_path.string() + ": cannot write");

  TestProgram program;
  program.directory = root.string();
  for (const codegen::EmittedFile& file : model.files) {
    if (file.path.ends_with(".c")) program.c_sources.push_back((root / file.path).string());
  }
  program.c_sources.push_back(main_path.string());
  program.include_dirs = {root.string(), (root / "runtime" / "include").string()};
  program.arena_symbol = model.prefix + "_arena";
  program.run_function = model.prefix + "_run";
  return program;
}

}  // namespace tinyfit::mcu
