// tinyfit_bench_memory: the plan-quality table of issue 3. For every shared
// model and every zoo model, one run measures the peak of each operator order
// (given, rpo, exact, hierarchical), the in-place peak (merges added to an
// order, and the exact order searched with its merges, issue 10), the lower
// bound, and the arena of each placement algorithm, with the time each took;
// then, for the NAS and RandWire networks, the in-place table against HMCOS.
//
// A plain executable, not Google Benchmark: it reports ratios measured in one
// run (DESIGN.md "Quality bar"), and the searches are too long to repeat; the
// times say what each algorithm costs, not a statistic. Google Benchmark is
// for the kernels' micro-benchmarks.
//
// Exit codes: 0 the table was printed and no guarantee broke (a model that
// fails to import is a row, not a failure); 2 bad command line or no model
// matched --only; 70 some algorithm broke its guarantee (listed under
// "Problems"): that is a bug to report.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "import/import_model.h"
#include "zoo/zoo.h"
#include "measure_memory_plans.h"
#include "print_memory_plans.h"
#include "support/diag.h"

#ifndef TINYFIT_MODELS_DIR
#define TINYFIT_MODELS_DIR ""
#endif
#ifndef TINYFIT_BUILD_TYPE
#define TINYFIT_BUILD_TYPE "unknown"
#endif

namespace tinyfit::bench {
namespace {

namespace fs = std::filesystem;

struct BenchOptions {
  std::string models_dir = TINYFIT_MODELS_DIR;
  std::string only;
  double time_limit_seconds = 60.0;
  bool json = false;
};

struct ModelSource {
  std::string name;    // shown in the table and matched by --only
  std::string import;  // what import_model takes
};

// Regular files only: golden/ holds directories named like models.
std::vector<ModelSource> list_model_files(const std::string& models_dir) {
  std::vector<ModelSource> sources;
  std::error_code error;
  if (models_dir.empty() || !fs::is_directory(models_dir, error)) return sources;
  // Import errors quote the path: /work/shared/models/x, not /work/main/../shared/models/x.
  const fs::path dir = fs::weakly_canonical(models_dir, error);
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir, error)) {
    const std::string extension = entry.path().extension().string();
    if (!entry.is_regular_file() || (extension != ".onnx" && extension != ".tflite")) continue;
    sources.push_back({fs::relative(entry.path(), dir).generic_string(), entry.path().string()});
  }
  std::sort(sources.begin(), sources.end(), [](const ModelSource& a, const ModelSource& b) { return a.name < b.name; });
  return sources;
}

// Issue 10: every NAS and RandWire zoo network as float32 ONNX (zoo:NAME is
// built as the ONNX model `tinyfit zoo NAME -o x.onnx` writes), the
// benchmark family of HMCOS; those the listing has already are not repeated.
constexpr std::string_view kNasFloatModels[] = {"nasnet-a-cifar-f32",    "nasnet-a-imagenet-f32", "darts-cifar-f32",
                                                "darts-imagenet-f32",    "amoebanet-cifar-f32",
                                                "amoebanet-imagenet-f32", "randwire-32-s1-f32"};

// HMCOS's peak (wzh99/HMCOS cf547ee, its order with its element-wise
// overwrite) on the ONNX exports, measured as shared/notes/BASELINES.md says.
struct HmcosPeak {
  std::string_view model;
  int64_t peak_bytes;
};
constexpr HmcosPeak kHmcosPeaks[] = {{"zoo:nasnet-a-imagenet-f32", 4'395'232},
                                     {"zoo:amoebanet-imagenet-f32", 4'741'632},
                                     {"zoo:darts-imagenet-f32", 4'616'192}};

int64_t find_hmcos_peak(const std::string& model) {
  for (const HmcosPeak& h : kHmcosPeaks) {
    if (h.model == model) return h.peak_bytes;
  }
  return 0;
}

std::vector<ModelSource> list_models(const BenchOptions& options) {
  std::vector<ModelSource> all = list_model_files(options.models_dir);
  for (const zoo::ZooEntry& entry : zoo::list_zoo_models()) {
    all.push_back({"zoo:" + entry.name, "zoo:" + entry.name});
  }
  for (std::string_view name : kNasFloatModels) {
    const std::string zoo_name = "zoo:" + std::string(name);
    const bool listed = std::any_of(all.begin(), all.end(), [&](const ModelSource& s) { return s.name == zoo_name; });
    if (!listed) all.push_back({zoo_name, zoo_name});
  }
  std::vector<ModelSource> selected;
  for (ModelSource& source : all) {
    if (source.name.find(options.only) != std::string::npos) selected.push_back(std::move(source));
  }
  return selected;
}

std::string describe_machine() {
  std::string cpu = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  }
  // The cores this process may use (a container's share), not the host's.
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cores = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
  return cpu + ", " + std::to_string(cores) + " cores (the bench uses one)";
}

std::string format_date_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

std::string join_command(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  return command;
}

// A progress line on a terminal only: files and pipes get the table alone.
class ProgressLine {
 public:
  explicit ProgressLine(size_t total) : total_(total), enabled_(isatty(STDERR_FILENO) != 0) {}

  void show(size_t index, const std::string& model, std::string_view phase, double fraction) {
    if (!enabled_) return;
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s: %.*s %3d%%", index + 1, total_, model.c_str(),
                 static_cast<int>(phase.size()), phase.data(), static_cast<int>(fraction * 100.0));
    std::fflush(stderr);
  }
  void clear() {
    if (enabled_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  size_t total_;
  bool enabled_;
};

ModelMeasurement measure_source(const ModelSource& source, const BenchOptions& options, size_t index,
                                ProgressLine& progress) {
  progress.show(index, source.name, "import", 0.0);
  const Stopwatch stopwatch;
  // The graph as the model gives it: HMCOS's peaks are of that graph, and
  // the orders compared here do not depend on merging identical operators.
  import::ImportOptions import_options;
  import_options.merge_identical_nodes = false;
  Result<ir::Graph> graph = import::import_model(source.import, import_options);
  const Timing import_time = stopwatch.read();
  if (!graph) {
    ModelMeasurement m;
    m.model = source.name;
    m.import_error = graph.error().format();
    m.import_time = import_time;
    return m;
  }
  MeasureOptions measure;
  measure.time_limit_seconds = options.time_limit_seconds;
  measure.progress = [&](std::string_view phase, double fraction) {
    progress.show(index, source.name, phase, fraction);
  };
  ModelMeasurement m = measure_memory_plans(*graph, source.name, measure);
  m.import_time = import_time;
  m.hmcos_peak_bytes = find_hmcos_peak(source.name);
  return m;
}

int run_bench(const BenchOptions& options, const std::string& command) {
  const std::vector<ModelSource> sources = list_models(options);
  std::error_code error;
  if (!fs::is_directory(options.models_dir, error)) {
    std::cerr << "tinyfit_bench_memory: warning: " << options.models_dir
              << ": models directory not found; measuring the zoo only\n";
  }
  if (sources.empty()) {
    std::cerr << "tinyfit_bench_memory: error: no model matches --only '" << options.only << "'\n";
    return static_cast<int>(ExitCode::kBadCommandLine);
  }
  BenchRun run;
  run.command = command;
  run.date_utc = format_date_utc();
  run.machine = describe_machine();
  run.build_type = TINYFIT_BUILD_TYPE;
  run.models_dir = fs::weakly_canonical(options.models_dir, error).string();
  run.time_limit_seconds = options.time_limit_seconds;
  ProgressLine progress(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    run.models.push_back(measure_source(sources[i], options, i, progress));
  }
  progress.clear();

  if (options.json) {
    std::cout << make_json(run).dump(2) << std::endl;
  } else {
    print_markdown(std::cout, run);
  }
  const bool broken = std::any_of(run.models.begin(), run.models.end(),
                                  [](const ModelMeasurement& m) { return !m.problems.empty(); });
  return static_cast<int>(broken ? ExitCode::kInternal : ExitCode::kOk);
}

}  // namespace
}  // namespace tinyfit::bench

int main(int argc, char** argv) {
  tinyfit::bench::BenchOptions options;
  CLI::App app{"tinyfit memory-plan benchmark: one run, every model, every order and placement"};
  app.add_option("--models-dir", options.models_dir, "folder searched for .onnx and .tflite models")
      ->capture_default_str();
  app.add_option("--only", options.only, "measure only the models whose name contains this");
  app.add_option("--time-limit", options.time_limit_seconds, "seconds per search (each order, each placement)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--json", options.json, "print one JSON object instead of the Markdown table");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(tinyfit::ExitCode::kBadCommandLine);
  }
  try {
    return tinyfit::bench::run_bench(options, tinyfit::bench::join_command(argc, argv));
  } catch (const std::bad_alloc&) {
    std::cerr << "tinyfit_bench_memory: error: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "tinyfit_bench_memory: internal error: " << e.what() << " (please report)\n";
  }
  return static_cast<int>(tinyfit::ExitCode::kInternal);
}
