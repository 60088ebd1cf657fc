#include "probe_firmware.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "codegen/c_source.h"
#include "codegen/emit_model.h"

namespace tinyfit::bench {
namespace {

namespace fs = std::filesystem;

// One image stays well inside the boards' 4 MiB of flash and of SRAM (mps2.ld)
// and builds in a few seconds.
constexpr int64_t kImageArenaBytes = 3 << 20;
constexpr int64_t kImageConstantBytes = 2 << 20;
constexpr size_t kImagePrograms = 120;
constexpr int64_t kBoardRamBytes = 4 << 20;
// A run shorter than this many 40-instruction ticks is repeated kRepeats
// times, so the tick's granularity stays below 0.1% of the count.
constexpr int kShortTicks = 1000;
constexpr int kRepeats = 32;

struct EmittedProgram {
  size_t index;                // into the programs
  codegen::EmittedModel model;
  std::vector<ir::Tensor> inputs;  // dtype and bytes of each graph input
};

struct Image {
  std::string group;
  std::vector<EmittedProgram> programs;
  int64_t arena_bytes = 0, constant_bytes = 0;
};

std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The runtime's helper files and the kernels the image calls (the others
// would only cost compile time: --gc-sections drops them anyway).
std::vector<std::string> list_runtime_sources(const std::set<std::string>& kernels) {
  const fs::path root = fs::path(TINYFIT_SOURCE_DIR) / "runtime" / "kernels";
  std::ifstream def(fs::path(TINYFIT_SOURCE_DIR) / "runtime" / "kernels.def");
  const std::string def_text((std::istreambuf_iterator<char>(def)), std::istreambuf_iterator<char>());
  std::vector<std::string> sources;
  for (const fs::directory_entry& entry : fs::directory_iterator(root)) {
    if (entry.path().extension() != ".c") continue;
    const std::string function = "tf_" + entry.path().stem().string();
    const bool listed = def_text.find("TINYFIT_KERNEL(" + function + ",") != std::string::npos;
    if (!listed || kernels.contains(function)) sources.push_back(entry.path().string());
  }
  std::sort(sources.begin(), sources.end());
  return sources;
}

// Deterministic input data: bytes from a linear congruential generator, and
// floats in [-1, 1) from the same sequence.
std::string make_input_arrays(int64_t bytes, int64_t floats) {
  std::vector<uint8_t> data(static_cast<size_t>(std::max<int64_t>(bytes, 4)));
  uint32_t state = 12345u;
  auto next = [&state]() { return state = state * 1664525u + 1013904223u; };
  for (uint8_t& b : data) b = static_cast<uint8_t>(next() >> 24);
  std::vector<uint8_t> float_bytes;
  for (int64_t i = 0; i < std::max<int64_t>(floats, 1); ++i) {
    const float value = static_cast<float>(static_cast<int32_t>(next() >> 8) - (1 << 23)) / static_cast<float>(1 << 23);
    const auto* p = reinterpret_cast<const uint8_t*>(&value);
    float_bytes.insert(float_bytes.end(), p, p + 4);
  }
  return "const uint8_t kInputBytes[] __attribute__((aligned(4))) = " +
         codegen::format_array_initializer("uint8_t", data) + ";\nconst float kInputFloats[] = " +
         codegen::format_array_initializer("float", float_bytes) + ";\n";
}

std::string make_main_source(const Image& image, bool repeat_short_runs) {
  std::ostringstream out;
  out << "/* Cost-table probes: one inference of each program between two counter reads. */\n"
      << "#include \"board.h\"\n";
  int64_t input_bytes = 0;
  for (const EmittedProgram& p : image.programs) {
    out << "#include \"p" << p.index << "/model.h\"\n";
    for (const ir::Tensor& t : p.inputs) input_bytes = std::max(input_bytes, t.size_bytes());
  }
  // Inputs are written into the arena (the zero-copy API) before each
  // measurement; invoke alone is counted, as the CI programs count it.
  out << "\n" << make_input_arrays(input_bytes, input_bytes / 4)
      << "static void copy_bytes(void* to, const void* from, uint32_t bytes) {\n"
      << "  uint8_t* t = (uint8_t*)to;\n  const uint8_t* f = (const uint8_t*)from;\n"
      << "  while (bytes--) *t++ = *f++;\n}\n\n";
  for (const EmittedProgram& p : image.programs) {
    out << "static void fill_" << p.index << "(void) {\n";
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      out << "  copy_bytes(" << p.model.prefix << "_input(" << i << "), "
          << (p.inputs[i].dtype == ir::DType::kF32 ? "kInputFloats" : "kInputBytes") << ", "
          << p.inputs[i].size_bytes() << "u);\n";
    }
    out << "}\nstatic void probe_" << p.index << "(void) { (void)" << p.model.prefix << "_invoke(); }\n";
  }
  out << "\ntypedef void (*Probe)(void);\nstatic const Probe kFills[] = {";
  for (const EmittedProgram& p : image.programs) out << "fill_" << p.index << ", ";
  out << "};\nstatic const Probe kProbes[] = {";
  for (const EmittedProgram& p : image.programs) out << "probe_" << p.index << ", ";
  out << "};\nstatic const uint32_t kProbeIds[] = {";
  for (const EmittedProgram& p : image.programs) out << p.index << "u, ";
  out << "};\n\n"
      << "static uint64_t count_ticks(Probe probe, uint32_t repeats) {\n"
      << "  uint32_t r;\n  board_counter_start();\n  for (r = 0; r < repeats; ++r) probe();\n"
      << "  return board_counter_read();\n}\n\n"
      << "int main(void) {\n  uint32_t i;\n"
      << "  for (i = 0; i < sizeof kProbes / sizeof kProbes[0]; ++i) {\n"
      << "    uint32_t repeats = 1;\n    uint64_t ticks;\n    kFills[i]();\n"
      << "    ticks = count_ticks(kProbes[i], 1);\n";
  if (repeat_short_runs) {
    out << "    if (ticks < " << kShortTicks << "u) {\n      repeats = " << kRepeats
        << "u;\n      ticks = count_ticks(kProbes[i], repeats);\n    }\n";
  }
  out << "    board_write(\"probe\\n\");\n    board_write_u64(kProbeIds[i]);\n"
      << "    board_write_u64(ticks * BOARD_INSTRUCTIONS_PER_TICK);\n    board_write_u64(repeats);\n  }\n"
      << "  return 0;\n}\n";
  return out.str();
}

// "probe\n<id>\n<instructions>\n<repeats>\n" per program.
void parse_board_output(const std::string& text, std::vector<double>& instructions) {
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    if (word != "probe") continue;
    size_t id = 0;
    double count = 0, repeats = 1;
    if (in >> id >> count >> repeats && id < instructions.size() && repeats > 0) instructions[id] = count / repeats;
  }
}

// callgrind_annotate --inclusive=yes lines: "  1,234 (0.5%)  /path/model.c:tinyfit_p12_invoke [/path/program]".
void parse_callgrind_annotate(const std::string& text, std::vector<double>& instructions) {
  static const std::regex kLine(R"(^\s*([0-9,]+)\s.*:tinyfit_p([0-9]+)_invoke\b)");
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, kLine)) continue;
    std::string digits = m[1].str();
    std::erase(digits, ',');
    const size_t id = std::stoul(m[2].str());
    if (id < instructions.size()) instructions[id] = std::stod(digits);
  }
}

std::string run_image(const Image& image, mcu::Target target, const std::string& dir,
                      std::vector<double>& instructions) {
  const bool board = target != mcu::Target::kHost;
  std::ofstream(dir + "/main.c") << make_main_source(image, board);
  std::set<std::string> kernels;
  mcu::BuildRequest request;
  request.target = target;
  request.ram_bytes = kBoardRamBytes;
  request.output = dir + (board ? "/probes.elf" : "/probes");
  request.include_dirs = {dir, std::string(TINYFIT_SOURCE_DIR) + "/runtime/include"};
  request.c_sources = {dir + "/main.c"};
  for (const EmittedProgram& p : image.programs) {
    for (const codegen::EmittedFile& file : p.model.files) {
      if (!file.path.starts_with("runtime/") && file.path.ends_with(".c")) {
        request.c_sources.push_back(dir + "/p" + std::to_string(p.index) + "/" + file.path);
      }
    }
    kernels.insert(p.model.kernels.begin(), p.model.kernels.end());
  }
  for (const std::string& source : list_runtime_sources(kernels)) request.c_sources.push_back(source);
  const mcu::CommandResult built = mcu::build_program(request);
  if (built.exit_code != 0) return "build failed: " + built.output.substr(0, 2000);
  if (board) {
    const std::string machine = target == mcu::Target::kCortexM4 ? "mps2-an386" : "mps2-an500";
    const mcu::CommandResult run = mcu::run_command(
        "timeout 1200 " + quote(TINYFIT_QEMU_ARM) + " -M " + machine +
        " -nographic -monitor none -serial none -semihosting-config enable=on,target=native -icount shift=0 -kernel " +
        quote(request.output));
    if (run.exit_code != 0) return "qemu exited " + std::to_string(run.exit_code) + ": " + run.output.substr(0, 500);
    parse_board_output(run.output, instructions);
    return {};
  }
  const std::string profile = dir + "/callgrind.out";
  const mcu::CommandResult run = mcu::run_command(quote(TINYFIT_VALGRIND) + " --tool=callgrind --callgrind-out-file=" +
                                                  quote(profile) + " " + quote(request.output) + " > /dev/null");
  if (run.exit_code != 0) return "callgrind failed: " + run.output.substr(0, 500);
  const mcu::CommandResult annotated =
      mcu::run_command(std::string(TINYFIT_CALLGRIND_ANNOTATE) + " --inclusive=yes --threshold=100 " + quote(profile));
  if (annotated.exit_code != 0) return "callgrind_annotate failed: " + annotated.output.substr(0, 500);
  parse_callgrind_annotate(annotated.output, instructions);
  return {};
}

}  // namespace

ProbeMeasurements measure_probe_programs(const std::vector<ProbeProgram>& programs, mcu::Target target,
                                         const std::string& work_dir, int jobs) {
  ProbeMeasurements result;
  result.instructions.assign(programs.size(), 0.0);
  std::vector<Image> images;
  std::map<std::string, size_t> open_image;  // group -> index of its image being filled
  for (size_t i = 0; i < programs.size(); ++i) {
    const ProbeProgram& program = programs[i];
    codegen::EmitOptions options;
    options.name = "p" + std::to_string(i);
    Result<codegen::EmittedModel> model = codegen::emit_c_model(program.graph, program.plan, options);
    if (!model) {
      result.problems.push_back(program.name + ": " + model.error().message);
      continue;
    }
    EmittedProgram emitted{i, std::move(*model), {}};
    for (ir::TensorId id : program.graph.inputs) emitted.inputs.push_back(program.graph.tensor(id));
    auto found = open_image.find(program.group);
    if (found == open_image.end() || images[found->second].programs.size() >= kImagePrograms ||
        images[found->second].arena_bytes + emitted.model.arena_bytes > kImageArenaBytes ||
        images[found->second].constant_bytes + emitted.model.constant_bytes > kImageConstantBytes) {
      open_image[program.group] = images.size();
      images.push_back({program.group, {}, 0, 0});
    }
    Image& image = images[open_image[program.group]];
    image.arena_bytes += emitted.model.arena_bytes;
    image.constant_bytes += emitted.model.constant_bytes;
    image.programs.push_back(std::move(emitted));
  }

  std::vector<std::string> problems(images.size());
  std::atomic<size_t> next{0};
  auto worker = [&]() {
    for (size_t k; (k = next++) < images.size();) {
      const std::string dir = work_dir + "/" + images[k].group + "_" + std::to_string(k);
      std::error_code ignored;
      fs::remove_all(dir, ignored);
      for (const EmittedProgram& p : images[k].programs) {
        const std::string program_dir = dir + "/p" + std::to_string(p.index);
        for (const codegen::EmittedFile& file : p.model.files) {
          // The model's own sources; the runtime comes from runtime/ once per image.
          if (file.path.starts_with("runtime/") || !(file.path.ends_with(".c") || file.path.ends_with(".h"))) continue;
          fs::create_directories(program_dir);
          std::ofstream(program_dir + "/" + file.path, std::ios::binary) << file.text;
        }
      }
      std::vector<double> counts(programs.size(), 0.0);
      problems[k] = run_image(images[k], target, dir, counts);
      for (const EmittedProgram& p : images[k].programs) result.instructions[p.index] = counts[p.index];
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < std::max(1, jobs); ++j) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  for (size_t k = 0; k < images.size(); ++k) {
    if (!problems[k].empty()) result.problems.push_back("image " + images[k].group + ": " + problems[k]);
  }
  return result;
}

}  // namespace tinyfit::bench
