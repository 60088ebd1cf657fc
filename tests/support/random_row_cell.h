// Seeded random NAS-like cells for row-loop tests through Concat and Slice
// (plan/lower_row_loop.h, MOTES §4.5: NAS cells): states joined by channel
// Concats, Adds of two edges, "same" windows (Conv2D, depthwise, pools; odd
// kernels, dilation 1 or 2), channel Slices (random begin, end and step of
// the channels, all rows), row crops (a Slice dropping the first or the last
// row, then a 3x3 convolution whose uneven padding restores the rows), and
// optionally a reduction prefix as NASNet's factorized reduce builds it: the
// input at twice the rows and cols, a 1x1 stride-2 convolution of it beside
// one of its one-pixel shift (a Slice from row and col 1), concatenated.
// int8 (random quantisations, so some Concats rescale) or float32. Every
// state made is read by a later operator and the cell ends in one operator
// (a Concat of the states nothing read, or the newest state), so the whole
// cell can be one row loop.
#pragma once

#include <string>
#include <vector>

#include "support/random_row_chain.h"

namespace tinyfit::row_cell {

using kernel_oracle::OracleCase;
using kernel_oracle::Random;
using row_chain::Activation;

struct CellSpec {
  uint64_t seed = 0;
  ir::DType dtype = ir::DType::kI8;
  int nodes = 5;           // random operators after the prefix, >= 1
  int64_t rows = 8;        // of the cell's states
  int64_t cols = 4;
  int64_t max_channels = 4;
  bool reduction = false;  // the input at 2 x rows, 2 x cols through a factorized reduce
};

class CellBuilder {
 public:
  CellBuilder(const CellSpec& spec, OracleCase& c) : spec_(spec), c_(c), r_(spec.seed) {}

  OracleCase& build() {
    c_.graph.name = "row-cell";
    c_.graph.source_path = "row-cell";
    const int64_t scale = spec_.reduction ? 2 : 1;
    const ir::Shape x_shape{1, spec_.rows * scale, spec_.cols * scale, r_.uniform_int(1, spec_.max_channels)};
    const ir::TensorId x = kernel_oracle::add_input(
        c_, "x", kernel_oracle::random_tensor(r_, spec_.dtype, x_shape, -1, 1),
        kernel_oracle::random_quant(r_, spec_.dtype, 0.01, 0.1));
    const Activation input{x, x_shape};
    if (spec_.reduction) {
      add_state(factorized_reduce(input));
    } else {
      states_.push_back(input);
      read_.push_back(true);  // a model input: no operator has to read it
    }
    for (int i = 0; i < spec_.nodes; ++i) add_state(random_operator());
    std::vector<Activation> unread;
    for (size_t s = 0; s < states_.size(); ++s) {
      if (!read_[s]) unread.push_back(states_[s]);
    }
    const Activation out = unread.size() > 1 ? concat(unread) : states_.back();
    c_.graph.outputs.push_back(out.tensor);
    return c_;
  }

 private:
  std::string name(const std::string& kind) { return kind + std::to_string(count_++); }

  void add_state(const Activation& a) {
    states_.push_back(a);
    read_.push_back(false);
  }
  const Activation& pick_state() {
    const size_t s = static_cast<size_t>(r_.uniform_int(0, static_cast<int64_t>(states_.size()) - 1));
    read_[s] = true;
    return states_[s];
  }

  // A window of stride 1 that keeps the extent: odd kernel, dilation 1 or 2.
  ir::ConvAttrs same_window() {
    ir::ConvAttrs a;
    a.kernel_h = r_.pick(std::vector<int64_t>{1, 3, 3, 5});
    a.kernel_w = r_.chance(0.7) ? a.kernel_h : r_.pick(std::vector<int64_t>{1, 3});
    a.dilation_h = a.kernel_h > 1 && r_.chance(0.25) ? 2 : 1;
    a.dilation_w = a.dilation_h;
    const int64_t pad_h = (a.kernel_h - 1) * a.dilation_h / 2, pad_w = (a.kernel_w - 1) * a.dilation_w / 2;
    a.pad = {pad_h, pad_w, pad_h, pad_w};
    return a;
  }

  Activation conv(const Activation& x, const ir::ConvAttrs& a, int64_t out_channels) {
    return row_chain::add_conv_node(r_, c_, spec_.dtype, x, a, out_channels, false, name("conv"));
  }

  // One edge of the cell: a window over x giving `channels` channels
  // (depthwise and pools only when x has them), or x itself.
  Activation edge(const Activation& x, int64_t channels) {
    const int64_t kind = r_.uniform_int(0, 4);
    if (kind == 0 && x.shape[3] == channels) return x;
    if (kind == 1 && x.shape[3] == channels) {
      return row_chain::add_conv_node(r_, c_, spec_.dtype, x, same_window(), channels, true, name("dw"));
    }
    if (kind == 2 && x.shape[3] == channels) {
      const ir::ConvAttrs w = same_window();
      ir::PoolAttrs a;
      a.kernel_h = w.kernel_h;
      a.kernel_w = w.kernel_w;
      a.pad = w.pad;
      if (w.dilation_h == 1) {
        const bool average = r_.chance(0.5);
        return row_chain::add_pool_node(c_, spec_.dtype, x, a, average, name(average ? "avgpool" : "maxpool"));
      }
    }
    return conv(x, same_window(), channels);
  }

  Activation concat(const std::vector<Activation>& parts) {
    ir::Shape shape = parts.front().shape;
    shape[3] = 0;
    std::vector<ir::TensorId> inputs;
    for (const Activation& p : parts) {
      shape[3] += p.shape[3];
      inputs.push_back(p.tensor);
    }
    const std::string n = name("concat");
    // Half the time the first input's quantisation (a plain copy for the
    // inputs that share it), else a new one: the others are rescaled.
    const auto q = r_.chance(0.5) ? c_.graph.tensor(parts.front().tensor).quant
                                  : kernel_oracle::random_quant(r_, spec_.dtype, 0.01, 0.3);
    const ir::TensorId y = kernel_oracle::add_tensor(c_, n + "/y", spec_.dtype, shape, q);
    kernel_oracle::set_node(c_, ir::OpType::kConcat, inputs, {y}, ir::ConcatAttrs{3});
    c_.graph.nodes.back().name = n;
    return {y, shape};
  }

  Activation slice(const Activation& x, const ir::SliceAttrs& a) {
    ir::Shape shape(4);
    for (size_t d = 0; d < 4; ++d) shape[d] = (a.end[d] - a.begin[d] + a.step[d] - 1) / a.step[d];
    const std::string n = name("slice");
    const ir::TensorId y = kernel_oracle::add_tensor(c_, n + "/y", spec_.dtype, shape, c_.graph.tensor(x.tensor).quant);
    kernel_oracle::set_node(c_, ir::OpType::kSlice, {x.tensor}, {y}, a);
    c_.graph.nodes.back().name = n;
    return {y, shape};
  }
  ir::SliceAttrs whole_slice(const Activation& x) {
    return {{0, 0, 0, 0}, {x.shape[0], x.shape[1], x.shape[2], x.shape[3]}, {1, 1, 1, 1}};
  }

  // NASNet's factorized reduce: 1x1 stride-2 convolutions of x and of x
  // shifted by one row and col, concatenated (x has even rows and cols).
  Activation factorized_reduce(const Activation& x) {
    ir::ConvAttrs a;
    a.stride_h = a.stride_w = 2;
    const int64_t half = std::max<int64_t>(1, spec_.max_channels / 2);
    const Activation direct = conv(x, a, r_.uniform_int(1, half));
    ir::SliceAttrs shift = whole_slice(x);
    shift.begin[1] = shift.begin[2] = 1;
    const Activation shifted = conv(slice(x, shift), a, r_.uniform_int(1, half));
    return concat({direct, shifted});
  }

  Activation random_operator() {
    const int64_t kind = r_.uniform_int(0, 9);
    if (kind <= 3) {  // a node: the sum of two edges
      const Activation& a = pick_state();
      const Activation& b = pick_state();
      const int64_t channels = r_.chance(0.5) ? a.shape[3] : r_.uniform_int(1, spec_.max_channels);
      const Activation left = edge(a, channels);
      Activation right = edge(b, channels);
      if (left.tensor == right.tensor) right = conv(b, same_window(), channels);  // a sum of two tensors
      row_chain::ChainSpec chain;
      chain.dtype = spec_.dtype;
      return row_chain::add_residual(r_, c_, chain, left, right, count_++);
    }
    if (kind <= 5) {  // a Concat of two or three states
      std::vector<Activation> parts;
      for (int64_t n = r_.uniform_int(2, 3); n > 0; --n) parts.push_back(pick_state());
      return concat(parts);
    }
    if (kind <= 7) {  // a channel Slice
      const Activation& x = pick_state();
      ir::SliceAttrs a = whole_slice(x);
      a.begin[3] = r_.uniform_int(0, x.shape[3] - 1);
      a.end[3] = r_.uniform_int(a.begin[3] + 1, x.shape[3]);
      a.step[3] = r_.pick(std::vector<int64_t>{1, 1, 2});
      return slice(x, a);
    }
    // A row crop and a 3x3 convolution whose padding gives the rows back.
    const Activation& x = pick_state();
    if (x.shape[1] < 2) return edge(x, x.shape[3]);
    ir::SliceAttrs a = whole_slice(x);
    const bool drop_first = r_.chance(0.5);
    if (drop_first) {
      a.begin[1] = 1;
    } else {
      a.end[1] = x.shape[1] - 1;
    }
    ir::ConvAttrs w;
    w.kernel_h = w.kernel_w = 3;
    w.pad = {drop_first ? 2 : 1, 1, drop_first ? 1 : 2, 1};
    return conv(slice(x, a), w, r_.uniform_int(1, spec_.max_channels));
  }

  const CellSpec& spec_;
  OracleCase& c_;
  Random r_;
  std::vector<Activation> states_;
  std::vector<bool> read_;  // per state: a later operator reads it
  int count_ = 0;
};

// A cell of spec.nodes random operators (after the reduction prefix).
inline OracleCase make_random_row_cell(const CellSpec& spec) {
  OracleCase c;
  CellBuilder(spec, c).build();
  return c;
}

}  // namespace tinyfit::row_cell
