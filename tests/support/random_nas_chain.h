// Seeded random chains of NAS-like cells (tests only), shaped as the zoo's
// ImageNet NAS networks are where their memory peaks: a stride-2 stem, then
// cells that each read the two cells before them (h[i-1] through a 1x1
// convolution, h[i-2] through a 1x1 convolution or, when it has twice the
// rows, NASNet's factorized reduce: 1x1 stride-2 convolutions of it and of
// its one-pixel shift, concatenated), sum pairs of windowed edges into their
// nodes and concatenate the nodes. Reduction cells (the first and the middle
// one) halve the rows and cols with stride-2 edges from their inputs. int8,
// random quantisations. The last cell's concat is the graph's output.
//
// The tensors live at the peak are made in one cell and read two cells
// later, so a row loop over one cell leaves the peak where it was.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "support/random_row_chain.h"

namespace tinyfit::nas_chain {

using kernel_oracle::OracleCase;
using kernel_oracle::Random;
using row_chain::Activation;

struct ChainSpec {
  uint64_t seed = 0;
  int cells = 4;
  int64_t rows = 32;  // of the stem's output (the input has twice as many rows and cols)
  int64_t cols = 8;
  int64_t channels = 4;  // per node of the first cell; doubled by each reduction cell
  // Each convolution edge applies its own ReLU to the state it reads (as the
  // zoo's NAS cells do: ReLU, then the separable convolution), so two such
  // edges of one state have identical ReLUs (import/merge_identical_nodes.h).
  bool relu_edges = false;
};

class ChainBuilder {
 public:
  ChainBuilder(const ChainSpec& spec, OracleCase& c) : spec_(spec), c_(c), r_(spec.seed) {}

  OracleCase& build() {
    c_.graph.name = "nas-chain";
    c_.graph.source_path = "nas-chain";
    const ir::Shape x_shape{1, 2 * spec_.rows, 2 * spec_.cols, 3};
    const ir::TensorId x = kernel_oracle::add_input(c_, "x", kernel_oracle::random_tensor(r_, kDType, x_shape, -1, 1),
                                                    kernel_oracle::random_quant(r_, kDType, 0.01, 0.1));
    const Activation stem = conv({x, x_shape}, stride_two(3), 8 * spec_.channels, "stem");
    Activation prev = stem, cur = stem;
    int64_t channels = spec_.channels;
    for (int i = 0; i < spec_.cells; ++i) {
      const bool reduction = i == 0 || i == spec_.cells / 2;
      if (reduction && i > 0) channels *= 2;
      const Activation next = cell(prev, cur, reduction, channels, "cell" + std::to_string(i));
      prev = cur;
      cur = next;
    }
    c_.graph.outputs.push_back(cur.tensor);
    return c_;
  }

 private:
  static constexpr ir::DType kDType = ir::DType::kI8;

  std::string name(const std::string& prefix, const std::string& kind) {
    return prefix + "/" + kind + std::to_string(count_++);
  }

  static ir::ConvAttrs stride_two(int64_t kernel) {
    ir::ConvAttrs a;
    a.kernel_h = a.kernel_w = kernel;
    a.stride_h = a.stride_w = 2;
    // Even rows halve exactly: pad_before + pad_after is kernel - 2 (kernel - 1
    // for 1).
    const int64_t before = (kernel - 1) / 2, after = std::max<int64_t>(before - 1, 0);
    a.pad = {before, before, after, after};
    return a;
  }
  static ir::ConvAttrs same(int64_t kernel) {
    ir::ConvAttrs a;
    a.kernel_h = a.kernel_w = kernel;
    a.pad = {(kernel - 1) / 2, (kernel - 1) / 2, (kernel - 1) / 2, (kernel - 1) / 2};
    return a;
  }

  Activation conv(const Activation& x, const ir::ConvAttrs& a, int64_t channels, const std::string& n,
                  bool depthwise = false) {
    return row_chain::add_conv_node(r_, c_, kDType, x, a, channels, depthwise, n);
  }

  Activation pool(const Activation& x, const ir::ConvAttrs& w, const std::string& prefix) {
    ir::PoolAttrs a;
    a.kernel_h = w.kernel_h;
    a.kernel_w = w.kernel_w;
    a.stride_h = w.stride_h;
    a.stride_w = w.stride_w;
    a.pad = w.pad;
    const bool average = r_.chance(0.5);
    return row_chain::add_pool_node(c_, kDType, x, a, average, name(prefix, average ? "avgpool" : "maxpool"));
  }

  Activation concat(const std::vector<Activation>& parts, const std::string& n) {
    ir::Shape shape = parts.front().shape;
    shape[3] = 0;
    std::vector<ir::TensorId> inputs;
    for (const Activation& p : parts) {
      shape[3] += p.shape[3];
      inputs.push_back(p.tensor);
    }
    const ir::TensorId y =
        kernel_oracle::add_tensor(c_, n + "/y", kDType, shape, kernel_oracle::random_quant(r_, kDType, 0.01, 0.3));
    kernel_oracle::set_node(c_, ir::OpType::kConcat, inputs, {y}, ir::ConcatAttrs{3});
    c_.graph.nodes.back().name = n;
    return {y, shape};
  }

  // NASNet's factorized reduce of x (even rows and cols) to `channels`.
  Activation factorized_reduce(const Activation& x, int64_t channels, const std::string& prefix) {
    const Activation direct = conv(x, stride_two(1), channels / 2, name(prefix, "reduce"));
    ir::SliceAttrs a{{0, 1, 1, 0}, {x.shape[0], x.shape[1], x.shape[2], x.shape[3]}, {1, 1, 1, 1}};
    const ir::Shape shifted_shape{1, x.shape[1] - 1, x.shape[2] - 1, x.shape[3]};
    const std::string n = name(prefix, "shift");
    const ir::TensorId y =
        kernel_oracle::add_tensor(c_, n + "/y", kDType, shifted_shape, c_.graph.tensor(x.tensor).quant);
    kernel_oracle::set_node(c_, ir::OpType::kSlice, {x.tensor}, {y}, a);
    c_.graph.nodes.back().name = n;
    // 2 x rows - 1 rows give rows outputs at stride 2 without padding.
    const Activation shifted = conv({y, shifted_shape}, stride_two(1), channels - channels / 2, name(prefix, "reduce"));
    return concat({direct, shifted}, name(prefix, "reduce_concat"));
  }

  // One edge into a node: a window over x keeping `channels` (stride 2 in a
  // reduction cell's edges from its inputs).
  Activation edge(const Activation& x, int64_t channels, bool stride, const std::string& prefix) {
    const int64_t kernel = r_.pick(std::vector<int64_t>{1, 3, 3, 5});
    const ir::ConvAttrs w = stride ? stride_two(kernel) : same(kernel);
    switch (r_.uniform_int(0, 2)) {
      case 0:
        return pool(x, w, prefix);
      case 1:
        return conv(relu_of(x, prefix), w, channels, name(prefix, "dw"), true);
      default:
        return conv(relu_of(x, prefix), w, channels, name(prefix, "conv"));
    }
  }

  // A ReLU of x with x's quantisation (ChainSpec::relu_edges), or x.
  Activation relu_of(const Activation& x, const std::string& prefix) {
    if (!spec_.relu_edges) return x;
    const std::string n = name(prefix, "relu");
    const ir::TensorId y = kernel_oracle::add_tensor(c_, n + "/y", kDType, x.shape, c_.graph.tensor(x.tensor).quant);
    kernel_oracle::set_node(c_, ir::OpType::kClip, {x.tensor}, {y}, ir::ClipAttrs{0.0f});
    c_.graph.nodes.back().name = n;
    return {y, x.shape};
  }

  Activation cell(const Activation& prev, const Activation& cur, bool reduction, int64_t channels,
                  const std::string& prefix) {
    const Activation s1 = conv(cur, same(1), channels, name(prefix, "pre"));
    const Activation s0 = prev.shape[1] == 2 * cur.shape[1] ? factorized_reduce(prev, channels, prefix)
                                                            : conv(prev, same(1), channels, name(prefix, "pre"));
    std::vector<Activation> states{s0, s1};
    std::vector<Activation> nodes;
    const int64_t count = r_.uniform_int(2, 3);
    for (int64_t n = 0; n < count; ++n) {
      Activation sum[2];
      for (Activation& edge_output : sum) {
        // In a reduction cell the first node reads only the inputs (stride 2).
        const size_t s = reduction && n == 0
                             ? static_cast<size_t>(r_.uniform_int(0, 1))
                             : static_cast<size_t>(r_.uniform_int(0, static_cast<int64_t>(states.size()) - 1));
        edge_output = edge(states[s], channels, reduction && s < 2, prefix);
      }
      row_chain::ChainSpec chain;
      chain.dtype = kDType;
      const Activation node = row_chain::add_residual(r_, c_, chain, sum[0], sum[1], count_++);
      c_.graph.nodes.back().name = name(prefix, "add");
      states.push_back(node);
      nodes.push_back(node);
    }
    return concat(nodes, name(prefix, "concat"));
  }

  const ChainSpec& spec_;
  OracleCase& c_;
  Random r_;
  int count_ = 0;
};

inline OracleCase make_random_nas_chain(const ChainSpec& spec) {
  OracleCase c;
  ChainBuilder(spec, c).build();
  return c;
}

}  // namespace tinyfit::nas_chain
