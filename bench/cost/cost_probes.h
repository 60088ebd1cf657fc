// The programs the cost tables are measured on (bench/cost/cost_tables.cc):
// small graphs under one plan each, chosen so that every runtime kernel is
// called over shapes that vary each call feature (src/cost/call_features.h)
// independently enough to fit it:
//  - every kernel oracle case maker (tests/property), a few seeds each: all
//    operators and dtypes, tiny edge shapes (extent 1, odd sizes, borders);
//  - model-sized Conv2D, DepthwiseConv2D, FullyConnected, pools and Add,
//    and BERT-sized MatMul and LayerNorm, where the instructions of real
//    networks are;
//  - those in channel-chunk and row-chunk loops (PEX and row calls);
//  - random chains of convolutions, pools and residual Adds as one row loop
//    (MOTES's row loops: calls on windows of rows, BlockConcat copies), and
//    short ones ending in a global pool the loop accumulates (int8, uint8);
//  - a cheap producer under a tall window at feature-map sizes, as a row
//    loop of 1-3 rows, where the BlockConcat copies are much of the work;
//  - each of those plans again with the workspaces of its calls' fastest
//    primitives (exec/add_kernel_workspaces.h: im2col + GEMM), so the
//    __dsp kernels are measured with and without them;
//  - conv-family nodes and inverted-residual chains as one call over their
//    own input (vMCU's segment kernels, tests/support/overlap_plans.h);
//  - inverted-residual chains and an expansion into a classifier under
//    partial execution (accumulate, finalize, partial buffers) and in place
//    (line-buffer depthwise);
//  - an expansion into a depthwise 3x3, 5x5 or 7x7 at the CI models' block
//    shapes, whole, under partial execution and in place;
//  - reshapes alone: the run function's own cost (its input/output copies).
//  - plan copies alone (tf_x8_copy), whole, by rows and by channels: the only
//    probes where a copy's counts do not grow with another call's.
// Deterministic: the same seed gives the same programs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost/plan_work.h"
#include "ir/graph.h"
#include "plan/plan.h"

namespace tinyfit::bench {

struct ProbeProgram {
  std::string name;   // "conv_i8/3", "chain_pex/2"
  std::string group;  // programs of one group share a firmware image
  ir::Graph graph;
  plan::Plan plan;    // placed and verified
  cost::PlanWork work;  // exec::count_plan_work(graph, plan): what the predictor sees
};

// Seeds [first_seed, first_seed + seeds), in units of each maker's base
// count, give its programs (the tables are fitted from seed 0; later seeds
// are held out to check them). Programs whose plan cannot be built or bound
// (a technique or kernel not built yet, such as a rank-5 transpose) are left
// out and listed in `skipped`.
std::vector<ProbeProgram> make_probe_programs(int first_seed, int seeds, std::vector<std::string>& skipped);

}  // namespace tinyfit::bench
