// Non-negative least squares, min |A x - b|^2 subject to x >= 0 (Lawson and
// Hanson's active-set algorithm, "Solving Least Squares Problems", ch. 23),
// for the few columns of one kernel's features. Hand-written: the Debian
// libraries at hand (CBC for ILPs) have no NNLS, and this is 80 lines.
#pragma once

#include <vector>

namespace tinyfit::cost {

// Rows of A (all of the same length n, n small: the normal equations are
// solved densely) and b. Columns are scaled to unit norm internally, so
// features of very different magnitudes fit alike. An all-zero column gets 0.
// Guarantees: x.size() == n, every x[j] >= 0; at most 3n passes.
std::vector<double> solve_nnls(const std::vector<std::vector<double>>& a, const std::vector<double>& b);

}  // namespace tinyfit::cost
