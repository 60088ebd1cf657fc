// STYLE.md testing pattern 1: every algorithm on seeded random traces and on
// the traces in tests/traces/, through the validity oracle and against the
// live-bytes lower bound.
#include "plan/place_best.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <span>
#include <fstream>
#include <sstream>

#include "plan/place_hill_climb.h"
#include "plan/place_sweep_search.h"
#include "plan/verify_placement.h"

namespace tinyfit::plan {
namespace {

// splitmix64: the same numbers on every platform (std distributions are not).
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
};

// Lifetimes within `steps`, sizes 1..max_bytes, alignments 1/4/16, and now
// and then an in-place pair: a buffer born at the step its partner dies.
std::vector<PlacementBuffer> make_random_trace(uint64_t seed, int count, int steps, int64_t max_bytes) {
  Random rng{seed};
  std::vector<PlacementBuffer> buffers;
  for (int i = 0; i < count; ++i) {
    PlacementBuffer b;
    b.id = i;
    b.bytes = 1 + rng.below(max_bytes);
    static constexpr int64_t kAlignments[] = {1, 4, 16};
    b.alignment = kAlignments[rng.below(3)];
    b.first_step = static_cast<int>(rng.below(steps));
    b.last_step = b.first_step + static_cast<int>(rng.below(4));
    if (i > 0 && rng.below(5) == 0) {
      const PlacementBuffer& partner = buffers[static_cast<size_t>(rng.below(i))];
      b.first_step = partner.last_step;
      b.last_step = b.first_step + static_cast<int>(rng.below(3));
      b.may_overlap_with = partner.id;
    }
    buffers.push_back(b);
  }
  return buffers;
}

// The checks every instance gets: valid, above the lower bound, best <= each,
// and exact == best whenever exact proved its optimum.
void check_every_algorithm(const std::vector<PlacementBuffer>& buffers, const PlacementOptions& options,
                           const std::string& what) {
  const int64_t lower_bound = compute_live_peak_bytes(buffers);
  Placement best;
  Placement exact;
  std::vector<Placement> results;
  for (const PlacementAlgorithm& algorithm : list_placement_algorithms()) {
    Placement p = algorithm.place(buffers, options);
    Status valid = verify_placement(buffers, p);
    EXPECT_TRUE(valid) << what << " " << algorithm.name << ": " << (valid ? "" : valid.error().message);
    EXPECT_GE(p.arena_bytes, lower_bound) << what << " " << algorithm.name;
    if (algorithm.name == "best") best = p;
    if (algorithm.name == "exact") exact = p;
    results.push_back(std::move(p));
  }
  for (const Placement& p : results) EXPECT_LE(best.arena_bytes, p.arena_bytes) << what << " " << p.algorithm;
  if (exact.proven_optimal) {
    EXPECT_EQ(exact.arena_bytes, best.arena_bytes) << what;
  }
}

TEST(PlaceBest, EveryAlgorithmIsValidAndAboveThePeakOnSmallRandomTraces) {
  PlacementOptions options;  // small enough for the exact search to finish
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    // 2..7 buffers: CBC proves these in milliseconds; 9 can take seconds.
    const int count = 2 + static_cast<int>(seed % 6);
    check_every_algorithm(make_random_trace(seed, count, 6, 200), options, "seed " + std::to_string(seed));
  }
}

TEST(PlaceBest, EveryAlgorithmIsValidOnLargeRandomTraces) {
  PlacementOptions options;
  options.exact_max_buffers = 12;  // the exact search falls back here, by design
  for (uint64_t seed = 100; seed < 110; ++seed) {
    check_every_algorithm(make_random_trace(seed, 150, 60, 100000), options, "seed " + std::to_string(seed));
  }
}

TEST(PlaceBest, ReachesTheOptimumTheGreedyOrdersMissAndKnowsItIsOptimal) {
  // See PlaceExact.FindsTheOptimumTheHeuristicsMiss: 120 by hand, the live
  // peak; the greedy orders give 130 to 140, hill climbing over orders finds
  // 120 first in table order.
  std::vector<PlacementBuffer> b = {{0, 70, 1, 3, 4}, {1, 60, 1, 1, 1}, {2, 20, 1, 0, 2}, {3, 50, 1, 2, 4}};
  Placement p = place_best(b, PlacementOptions{});
  EXPECT_EQ(p.arena_bytes, 120);
  EXPECT_EQ(p.algorithm, "hill-climb");
  EXPECT_TRUE(p.proven_optimal);
}

TEST(PlaceBest, KeepsAnOptimumOnlyTheSolverCanProve) {
  // Two 3-byte buffers aligned to 4: 7 everywhere, above the live peak 6;
  // the exact run proves 7 minimal.
  std::vector<PlacementBuffer> b = {{0, 3, 4, 0, 0}, {1, 3, 4, 0, 0}};
  Placement p = place_best(b, PlacementOptions{});
  EXPECT_EQ(p.arena_bytes, 7);
  EXPECT_TRUE(p.proven_optimal);
}

TEST(PlaceBest, TiesGoToTheFirstAlgorithmInTableOrder) {
  // Staircase: every algorithm reaches the peak 150; greedy-by-size comes first.
  std::vector<PlacementBuffer> b = {{0, 100, 1, 0, 1}, {1, 50, 1, 1, 2}, {2, 50, 1, 2, 3}};
  Placement p = place_best(b, PlacementOptions{});
  EXPECT_EQ(p.arena_bytes, 150);
  EXPECT_EQ(p.algorithm, "greedy-by-size");
  EXPECT_TRUE(p.proven_optimal);
}

TEST(PlaceBest, NoBuffersGiveAnEmptyArena) {
  for (const PlacementAlgorithm& algorithm : list_placement_algorithms()) {
    Placement p = algorithm.place({}, PlacementOptions{});
    EXPECT_EQ(p.arena_bytes, 0) << algorithm.name;
    EXPECT_TRUE(p.offsets.empty()) << algorithm.name;
  }
}

TEST(PlaceBest, IsDeterministic) {
  std::vector<PlacementBuffer> b = make_random_trace(7, 80, 40, 5000);
  PlacementOptions options;
  options.exact_max_buffers = 0;
  EXPECT_EQ(place_best(b, options).offsets, place_best(b, options).offsets);
}

// tests/traces/*.txt: one buffer per line, "first_step last_step bytes";
// blank lines and '#' comments are skipped. Alignment 1, as traced.
std::vector<PlacementBuffer> read_trace(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<PlacementBuffer> buffers;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    PlacementBuffer b;
    fields >> b.first_step >> b.last_step >> b.bytes;
    EXPECT_TRUE(fields && b.first_step <= b.last_step && b.bytes >= 0)
        << path << ":" << line_number << ": expected 'first_step last_step bytes'";
    b.id = static_cast<int>(buffers.size());
    buffers.push_back(b);
  }
  return buffers;
}

TEST(PlaceBest, EveryAlgorithmIsValidAndAboveThePeakOnTheTraceFiles) {
  const std::filesystem::path dir = std::filesystem::path(TINYFIT_SOURCE_DIR) / "tests" / "traces";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no " << dir;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  PlacementOptions options;
  options.exact_max_seconds = 2.0;
  for (const std::filesystem::path& file : files) {
    std::vector<PlacementBuffer> buffers = read_trace(file);
    check_every_algorithm(buffers, options, file.filename().string());
    const Placement best = place_best(buffers, options);
    const int64_t peak = compute_live_peak_bytes(buffers);
    std::cout << file.filename().string() << ": " << buffers.size() << " buffers, peak " << peak
              << ", arena " << best.arena_bytes << " (" << best.algorithm << "), fragmentation "
              << static_cast<double>(best.arena_bytes) / static_cast<double>(std::max<int64_t>(peak, 1))
              << (best.note.empty() ? "" : ", " + best.note) << "\n";
  }
}

// The placement behind issue 10's DARTS-ImageNet figure: the greedy orders
// and the hill climb over them stay 179,712 bytes above the live peak (the
// header of the trace), the sweep search places it at the peak.
TEST(PlaceSweepSearch, PlacesTheDartsImagenetInPlaceTraceAtItsPeakWhereHillClimbDoesNot) {
  const std::vector<PlacementBuffer> buffers = read_trace(std::filesystem::path(TINYFIT_SOURCE_DIR) / "tests" /
                                                          "traces" / "darts_imagenet_f32_inplace_exact.txt");
  const int64_t peak = compute_live_peak_bytes(buffers);
  EXPECT_EQ(peak, 4'616'192);  // the trace's step 16, by hand in its header
  EXPECT_GT(place_hill_climb(buffers, PlacementOptions{}).arena_bytes, peak);
  const Placement sweep = place_sweep_search(buffers, PlacementOptions{});
  EXPECT_TRUE(verify_placement(buffers, sweep));
  EXPECT_EQ(sweep.arena_bytes, peak) << sweep.note;
  EXPECT_TRUE(sweep.proven_optimal);
  const Placement best = place_best(buffers, PlacementOptions{});
  EXPECT_EQ(best.arena_bytes, peak);
  EXPECT_EQ(best.algorithm, "sweep-search");
}

// Guillotine cuts of an arena of `arena_bytes` over `steps` steps: each block
// splits in time or in bytes until it is small; the blocks are the buffers,
// so every step is tiled exactly and the live peak is the arena.
std::vector<PlacementBuffer> make_tiled_trace(uint64_t seed, int steps, int64_t arena_bytes) {
  Random rng{seed};
  struct Block {
    int first_step, last_step;
    int64_t bytes;
  };
  std::vector<Block> open{{0, steps - 1, arena_bytes}};
  std::vector<PlacementBuffer> buffers;
  while (!open.empty()) {
    const Block b = open.back();
    open.pop_back();
    const bool split_time = b.last_step > b.first_step && rng.below(2) == 0;
    const bool split_bytes = b.bytes >= 2 && rng.below(3) != 0;
    if (buffers.size() + open.size() < 60 && split_time) {
      const int cut = b.first_step + static_cast<int>(rng.below(b.last_step - b.first_step));
      open.push_back({b.first_step, cut, b.bytes});
      open.push_back({cut + 1, b.last_step, b.bytes});
    } else if (buffers.size() + open.size() < 60 && split_bytes) {
      const int64_t cut = 1 + rng.below(b.bytes - 1);
      open.push_back({b.first_step, b.last_step, cut});
      open.push_back({b.first_step, b.last_step, b.bytes - cut});
    } else {
      PlacementBuffer buffer;
      buffer.id = static_cast<int>(buffers.size());
      buffer.bytes = b.bytes;
      buffer.first_step = b.first_step;
      buffer.last_step = b.last_step;
      buffers.push_back(buffer);
    }
  }
  return buffers;
}

// A fallback for the sweep search: every buffer above the one before (valid,
// far above the peak), so that a placement at the peak is the search's own.
Placement stack_buffers(std::span<const PlacementBuffer> buffers) {
  Placement stacked;
  stacked.algorithm = "stacked";
  for (const PlacementBuffer& b : buffers) {
    stacked.offsets.push_back(stacked.arena_bytes);
    stacked.arena_bytes += b.bytes;
  }
  return stacked;
}

TEST(PlaceSweepSearch, PlacesPerfectlyTiledRandomInstancesAtTheirPeak) {
  int at_peak = 0;
  constexpr int kInstances = 100;
  for (uint64_t seed = 1; seed <= kInstances; ++seed) {
    const std::vector<PlacementBuffer> buffers = make_tiled_trace(seed, 12, 1000);
    ASSERT_EQ(compute_live_peak_bytes(buffers), 1000) << "seed " << seed;  // tiled: every step holds 1000
    const Placement p = place_sweep_search_from(buffers, stack_buffers(buffers), PlacementOptions{});
    Status valid = verify_placement(buffers, p);
    EXPECT_TRUE(valid) << "seed " << seed << ": " << (valid ? "" : valid.error().message);
    EXPECT_EQ(p.proven_optimal, p.arena_bytes == 1000) << "seed " << seed;
    at_peak += p.arena_bytes == 1000 ? 1 : 0;
  }
  // Measured: all of them. The search is incomplete in general (a buffer
  // may need to rest on one placed after it), so a failure here is a finding.
  EXPECT_EQ(at_peak, kInstances);
}

TEST(PlaceSweepSearch, LeavesDeclaredOverlapsToTheOtherAlgorithms) {
  // 2 may start where 1 starts (in place); the live peak is 70 (steps 1-2).
  std::vector<PlacementBuffer> b = {{0, 30, 1, 0, 1}, {1, 40, 1, 1, 2}, {2, 40, 1, 2, 3}, {3, 20, 1, 0, 0}};
  b[2].may_overlap_with = 1;
  const Placement p = place_sweep_search_from(b, stack_buffers(b), PlacementOptions{});
  EXPECT_EQ(p.algorithm, "stacked");
  EXPECT_EQ(p.arena_bytes, 130);  // 30 + 40 + 40 + 20, the fallback's
  EXPECT_NE(p.note.find("declared overlaps"), std::string::npos) << p.note;
}

}  // namespace
}  // namespace tinyfit::plan
