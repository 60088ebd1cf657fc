#include "cost/nnls.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <limits>

namespace tinyfit::cost {
namespace {

using Matrix = std::vector<std::vector<double>>;

// Solves M z = r restricted to the `passive` indices (Gaussian elimination
// with partial pivoting; a tiny ridge keeps collinear features solvable).
std::vector<double> solve_passive(const Matrix& m, const std::vector<double>& r, const std::vector<bool>& passive) {
  std::vector<size_t> index;
  for (size_t j = 0; j < passive.size(); ++j) {
    if (passive[j]) index.push_back(j);
  }
  const size_t p = index.size();
  Matrix s(p, std::vector<double>(p + 1));
  for (size_t i = 0; i < p; ++i) {
    for (size_t j = 0; j < p; ++j) s[i][j] = m[index[i]][index[j]] + (i == j ? 1e-12 : 0.0);
    s[i][p] = r[index[i]];
  }
  for (size_t col = 0; col < p; ++col) {
    size_t pivot = col;
    for (size_t i = col + 1; i < p; ++i) {
      if (std::abs(s[i][col]) > std::abs(s[pivot][col])) pivot = i;
    }
    std::swap(s[col], s[pivot]);
    if (std::abs(s[col][col]) < 1e-300) continue;
    for (size_t i = 0; i < p; ++i) {
      if (i == col) continue;
      const double factor = s[i][col] / s[col][col];
      for (size_t j = col; j <= p; ++j) s[i][j] -= factor * s[col][j];
    }
  }
  std::vector<double> z(passive.size(), 0.0);
  for (size_t i = 0; i < p; ++i) z[index[i]] = std::abs(s[i][i]) < 1e-300 ? 0.0 : s[i][p] / s[i][i];
  return z;
}

}  // namespace

std::vector<double> solve_nnls(const Matrix& a, const std::vector<double>& b) {
  const size_t n = a.empty() ? 0 : a.front().size();
  std::vector<double> scale(n, 0.0);
  for (const auto& row : a) {
    for (size_t j = 0; j < n; ++j) scale[j] += row[j] * row[j];
  }
  for (double& s : scale) s = s > 0 ? 1.0 / std::sqrt(s) : 0.0;
  // Normal equations of the scaled problem.
  Matrix m(n, std::vector<double>(n, 0.0));
  std::vector<double> r(n, 0.0);
  for (size_t row = 0; row < a.size(); ++row) {
    for (size_t i = 0; i < n; ++i) {
      const double ai = a[row][i] * scale[i];
      r[i] += ai * b[row];
      for (size_t j = 0; j < n; ++j) m[i][j] += ai * a[row][j] * scale[j];
    }
  }
  std::vector<double> x(n, 0.0);
  std::vector<bool> passive(n, false);
  auto gradient = [&](size_t j) {
    double g = r[j];
    for (size_t k = 0; k < n; ++k) g -= m[j][k] * x[k];
    return g;
  };
  constexpr double kTolerance = 1e-10;
  for (size_t outer = 0; outer < 3 * n; ++outer) {
    size_t best = n;
    double best_gradient = kTolerance;
    for (size_t j = 0; j < n; ++j) {
      if (passive[j] || scale[j] == 0.0) continue;
      const double g = gradient(j);
      if (g > best_gradient) best = j, best_gradient = g;
    }
    if (best == n) break;
    passive[best] = true;
    for (size_t inner = 0; inner < 3 * n; ++inner) {
      const std::vector<double> z = solve_passive(m, r, passive);
      double step = 1.0;
      bool feasible = true;
      for (size_t j = 0; j < n; ++j) {
        if (passive[j] && z[j] <= 0) {
          feasible = false;
          const double denominator = x[j] - z[j];
          if (denominator > 0) step = std::min(step, x[j] / denominator);
        }
      }
      if (feasible) {
        x = z;
        break;
      }
      for (size_t j = 0; j < n; ++j) {
        x[j] += step * (z[j] - x[j]);
        if (passive[j] && x[j] <= kTolerance) passive[j] = false, x[j] = 0;
      }
    }
  }
  for (size_t j = 0; j < n; ++j) x[j] = std::max(0.0, x[j]) * scale[j];
  return x;
}

}  // namespace tinyfit::cost
