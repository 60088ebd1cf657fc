// A bounded mutation fuzzer for the importers (STYLE.md: "each importer has a
// fuzzer"). It mutates the real models of shared/models (and the error corpus
// and tests/fuzz/seeds as small seed corpora) with a seeded PRNG, writes each
// mutant to a temp file and imports it in-process. Passing means: a Graph or a Diag comes back. A
// crash, a sanitizer report, an escaped InternalError / bad_alloc / other
// exception, or an import that hangs fails with the seed and the mutations.
//
// Bounded: a fixed list of mutants per model (fewer for big models), cut short
// when a model has used its time budget, so the run stays under a minute in a
// sanitizer build. TINYFIT_FUZZ_VERBOSE=1 prints the count and time per model.
// Longer runs: TINYFIT_FUZZ_SCALE=10 (ten times the mutants), another
// TINYFIT_FUZZ_SEED; reproduce one failure: TINYFIT_FUZZ_CASE=<file name>:<iteration>.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "import/import_model.h"

extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kDefaultSeed = 0x7469'6e79'6669'7421ull;  // "tinyfit!"
// Mutants per model: kMaxIterations for small files, fewer for big ones so
// every model costs about kBytesPerModel bytes of importing.
constexpr int kMaxIterations = 120;
constexpr int kMinIterations = 12;
constexpr int64_t kBytesPerModel = 6'000'000;
// And at most this much time per model: a few mutants are slow to import (the
// light_* models materialise hundreds of MB of ConstantOfShape weights; an
// unmutated light_vgg19 takes 2 s), and the suite must stay under a minute in
// a sanitizer build. The mutants that do run are the same every time.
constexpr double kSecondsPerModel = 0.75;
// A single import that takes longer than this is a hang. Generous: a mutant
// of light_vgg19 that imports legitimately took 18 s under ASan alone and
// over 30 s on a loaded 2-core machine (a shape bit flipped into a larger
// ConstantOfShape); a real hang never ends.
constexpr auto kHangLimit = std::chrono::seconds(120);

// What the process is doing right now, preformatted so a signal handler or a
// sanitizer's death callback can print it with write(2) alone.
char g_current_case[1024] = "no case running";

void print_current_case() {
  const char prefix[] = "\nmutation_fuzz: died while importing: ";
  [[maybe_unused]] ssize_t ignored = write(2, prefix, sizeof(prefix) - 1);
  ignored = write(2, g_current_case, strnlen(g_current_case, sizeof(g_current_case)));
  ignored = write(2, "\n", 1);
}

void handle_fatal_signal(int signal_number) {
  print_current_case();
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void install_crash_reporters() {
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(s, handle_fatal_signal);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(print_current_case);
}

uint64_t read_env_u64(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  return text ? std::strtoull(text, nullptr, 0) : fallback;
}

// FNV-1a: a stable hash of the model's file name, so adding a model does not
// change the mutants of the others.
uint64_t hash_name(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> list_seed_models() {
  std::vector<fs::path> models;
  auto add_folder = [&](const fs::path& folder, bool recursive) {
    if (!fs::is_directory(folder)) return;
    auto consider = [&](const fs::directory_entry& entry) {
      const auto ext = entry.path().extension();
      if (entry.is_regular_file() && (ext == ".onnx" || ext == ".tflite")) {
        models.push_back(entry.path());
      }
    };
    if (recursive) {
      for (const auto& entry : fs::recursive_directory_iterator(folder)) consider(entry);
    } else {
      for (const auto& entry : fs::directory_iterator(folder)) consider(entry);
    }
  };
  add_folder(fs::path(TINYFIT_MODELS_DIR) / "onnx", true);
  add_folder(fs::path(TINYFIT_MODELS_DIR) / "tflite", true);
  add_folder(fs::path(TINYFIT_SOURCE_DIR) / "tests" / "errors", false);
  // Small valid models of the classes issue 10 §2 made importable (written by
  // tests/models/exported_models.py): they reach the layout, Cast, shuffle
  // and Resize converters of both importers.
  add_folder(fs::path(TINYFIT_SOURCE_DIR) / "tests" / "fuzz" / "seeds", false);
  std::sort(models.begin(), models.end());  // directory order is not stable
  return models;
}

// One mutant: a list of edits applied to the original bytes.
class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  // Applies 1..4 stacked edits; returns their description.
  std::string mutate(std::string& data) {
    std::ostringstream log;
    const int edits = 1 + static_cast<int>(next(4));
    for (int e = 0; e < edits; ++e) {
      if (e > 0) log << ", ";
      apply_one(data, log);
    }
    return log.str();
  }

 private:
  uint64_t next(uint64_t bound) { return bound == 0 ? 0 : rng_() % bound; }

  void apply_one(std::string& data, std::ostringstream& log) {
    if (data.empty()) {
      data.assign(1 + next(64), '\0');
      for (char& c : data) c = static_cast<char>(next(256));
      log << "replace empty file with " << data.size() << " random bytes";
      return;
    }
    const size_t size = data.size();
    switch (next(8)) {
      case 0: {
        const size_t at = next(size);
        const int bit = static_cast<int>(next(8));
        data[at] = static_cast<char>(data[at] ^ (1 << bit));
        log << "flip bit " << bit << " of byte " << at;
        break;
      }
      case 1:
      case 2: {
        // Bytes set to 0, 0xFF or a random value; several in a row half the
        // time, which reaches whole length and offset fields.
        const size_t at = next(size);
        const size_t count = std::min<size_t>(size - at, next(2) ? 1 : 1 + next(8));
        const int kind = static_cast<int>(next(3));
        for (size_t i = 0; i < count; ++i) {
          data[at + i] = static_cast<char>(kind == 0 ? 0 : kind == 1 ? 0xFF : next(256));
        }
        log << "set " << count << " byte(s) at " << at << " to "
            << (kind == 0 ? "0x00" : kind == 1 ? "0xFF" : "random");
        break;
      }
      case 3: {
        // Small integers at a random offset: plausible lengths, counts, dims.
        const size_t at = next(size);
        const char value = static_cast<char>(next(2) ? 0x7F : 0x80);
        data[at] = value;
        log << "set byte " << at << " to " << (value == 0x7F ? "0x7F" : "0x80");
        break;
      }
      case 4: {
        const size_t keep = next(size);
        data.resize(keep);
        log << "truncate to " << keep << " bytes";
        break;
      }
      case 5: {
        const size_t from = next(size);
        const size_t len = std::min<size_t>(size - from, 1 + next(256));
        const size_t to = next(size + 1);
        data.insert(to, data.substr(from, len));
        log << "duplicate " << len << " bytes from " << from << " at " << to;
        break;
      }
      case 6: {
        // Splice: overwrite one region with a copy of another.
        const size_t from = next(size);
        const size_t to = next(size);
        const size_t len = std::min({size - from, size - to, size_t{1} + next(512)});
        const std::string chunk = data.substr(from, len);
        data.replace(to, len, chunk);
        log << "copy " << len << " bytes from " << from << " over " << to;
        break;
      }
      default: {
        const size_t from = next(size);
        const size_t len = std::min<size_t>(size - from, 1 + next(256));
        data.erase(from, len);
        log << "erase " << len << " bytes at " << from;
        break;
      }
    }
  }

  std::mt19937_64 rng_;
};

// Flags an import that never returns: prints the case and ends the process,
// because a stuck importer cannot be interrupted from inside.
class Watchdog {
 public:
  Watchdog()
      : thread_([this] {
          while (!stop_) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            const auto started = started_.load();
            if (started != 0 && std::chrono::steady_clock::now().time_since_epoch().count() -
                                        started > std::chrono::nanoseconds(kHangLimit).count()) {
              const char message[] = "\nmutation_fuzz: hang (import took more than the limit)";
              [[maybe_unused]] ssize_t ignored = write(2, message, sizeof(message) - 1);
              print_current_case();
              std::_Exit(3);
            }
          }
        }) {}
  ~Watchdog() {
    stop_ = true;
    thread_.join();
  }
  void start_case() { started_ = std::chrono::steady_clock::now().time_since_epoch().count(); }
  void end_case() { started_ = 0; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> started_{0};
  std::thread thread_;
};

TEST(MutationFuzz, ImportersReturnAGraphOrADiagOnEveryMutant) {
  install_crash_reporters();
  const uint64_t base_seed = read_env_u64("TINYFIT_FUZZ_SEED", kDefaultSeed);
  const uint64_t scale = std::max<uint64_t>(1, read_env_u64("TINYFIT_FUZZ_SCALE", 1));
  const char* only_case = std::getenv("TINYFIT_FUZZ_CASE");

  const std::vector<fs::path> models = list_seed_models();
  ASSERT_FALSE(models.empty()) << "no models under " << TINYFIT_MODELS_DIR;

  std::string dir_pattern = (fs::temp_directory_path() / "tinyfit_fuzz_XXXXXX").string();
  ASSERT_NE(mkdtemp(dir_pattern.data()), nullptr);
  const fs::path work_dir = dir_pattern;

  Watchdog watchdog;
  const auto started = std::chrono::steady_clock::now();
  int64_t total = 0, accepted = 0;
  for (const fs::path& model : models) {
    const std::string original = read_file(model);
    const std::string file_name = model.filename().string();
    const int64_t by_size =
        kBytesPerModel / std::max<int64_t>(1, static_cast<int64_t>(original.size()));
    const int iterations =
        static_cast<int>(std::clamp<int64_t>(by_size, kMinIterations, kMaxIterations) * scale);
    // The mutant keeps the extension: import_model picks the importer by it.
    const fs::path mutant_path = work_dir / ("mutant" + model.extension().string());
    const auto model_started = std::chrono::steady_clock::now();
    int done = 0;
    for (int iteration = 0; iteration < iterations; ++iteration) {
      const double model_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - model_started).count();
      if (iteration > 0 && !only_case && model_seconds > kSecondsPerModel * double(scale)) break;
      if (only_case && std::string(only_case) != file_name + ":" + std::to_string(iteration)) {
        continue;
      }
      const uint64_t seed = base_seed ^ hash_name(file_name) ^ (uint64_t(iteration) << 32);
      std::string data = original;
      const std::string mutation = Mutator(seed).mutate(data);
      std::ofstream(mutant_path, std::ios::binary | std::ios::trunc) << data;
      const std::string where = model.string() + " iteration " + std::to_string(iteration) +
                                " (TINYFIT_FUZZ_SEED=" + std::to_string(base_seed) +
                                " TINYFIT_FUZZ_CASE=" + file_name + ":" +
                                std::to_string(iteration) + "): " + mutation + "; mutant at " +
                                mutant_path.string();
      std::snprintf(g_current_case, sizeof(g_current_case), "%s", where.c_str());

      watchdog.start_case();
      bool failed = true;
      try {
        auto graph = tinyfit::import::import_model(mutant_path.string());
        if (graph) ++accepted;
        failed = false;
      } catch (const tinyfit::InternalError& e) {
        ADD_FAILURE() << "internal error escaped: " << e.what() << "\n  " << where;
      } catch (const std::bad_alloc&) {
        ADD_FAILURE() << "bad_alloc escaped (allocation before validation?)\n  " << where;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "exception escaped: " << e.what() << "\n  " << where;
      }
      watchdog.end_case();
      ++total;
      ++done;
      if (failed) {
        // Keep the failing input for tests/errors/ before the next mutant overwrites it.
        fs::copy_file(mutant_path, work_dir / ("failure_" + std::to_string(total) +
                                               model.extension().string()));
      }
    }
    if (std::getenv("TINYFIT_FUZZ_VERBOSE")) {
      std::printf("  %-45s %7zu bytes %4d of %4d mutants %6.2f s\n", file_name.c_str(),
                  original.size(), done, iterations,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - model_started)
                      .count());
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("mutation_fuzz: %lld mutants of %zu models in %.1f s, %lld imported cleanly, the "
              "rest rejected with a Diag (seed %llu)\n",
              static_cast<long long>(total), models.size(), seconds,
              static_cast<long long>(accepted), static_cast<unsigned long long>(base_seed));
  if (!HasFailure()) {
    std::error_code ec;
    fs::remove_all(work_dir, ec);
  }
}

}  // namespace
