// Fits a cost table's coefficients to its probes: minimise the probes'
// squared relative prediction errors with every coefficient >= 0 (a count a
// kernel does not depend on gets 0 instead of a negative weight that would
// extrapolate badly). One joint problem over the run counts and every
// kernel's features, solved by block coordinate descent: each pass solves the
// run block, then each kernel's block, by NNLS on what the other blocks leave
// of the probes that use it (a kernel's block: one column per call feature).
// Deterministic.
#pragma once

#include "cost/cost_table.h"

namespace tinyfit::cost {

// Requires: table.probes measured (instructions > 0).
// Guarantees: run_coefficients and kernels (coefficients, probes, errors) set
// from the probes; kernels no probe calls are absent.
void fit_cost_table(CostTable& table);

// Refits only the rows of `kernels` (each called by some probe), every other
// coefficient (the run block, the other kernels' rows) kept as it is: what
// tinyfit_bench_cost_tables --kernels does after measuring the probes of
// kernels added or changed since the table was fitted, without re-measuring
// the others. The same relative least squares, by block coordinate descent
// over those rows alone; their probes and errors are set as fit_cost_table
// sets them.
void refit_kernel_rows(CostTable& table, const std::vector<std::string>& kernels);

// Before such a refit: every probe of the table that calls one of `kernels`
// is dropped, then the freshly measured probes are added (one of the same
// name as a kept probe replaces it). A probe measured before the kernel
// changed, or with fewer features, must not stay in the refit; a refit with
// fewer seeds than the last one would otherwise keep the probes it did not
// re-measure.
void replace_kernel_probes(CostTable& table, const std::vector<std::string>& kernels, std::vector<Probe> fresh);

}  // namespace tinyfit::cost
