#include "analysis/inplace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "analysis/inplace_rule.h"
#include "support/diag.h"

namespace tinyfit::analysis {
namespace {

// A small graph builder: activations of one dtype, constants zero-filled.
struct TestGraph {
  ir::Graph graph;
  ir::TensorId activation(const std::string& name, ir::Shape shape, ir::DType dtype = ir::DType::kF32) {
    return graph.add_tensor(ir::Tensor{name, dtype, std::move(shape), {}, false, {}});
  }
  ir::TensorId constant(const std::string& name, ir::Shape shape, ir::DType dtype = ir::DType::kF32) {
    ir::Tensor t{name, dtype, std::move(shape), {}, true, {}};
    t.data.assign(static_cast<size_t>(t.size_bytes()), 0);
    return graph.add_tensor(std::move(t));
  }
  void node(ir::OpType op, std::vector<ir::TensorId> in, std::vector<ir::TensorId> out, ir::OpAttrs attrs = {}) {
    ir::Node n;
    n.name = "n" + std::to_string(graph.nodes.size());
    n.op = op;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    n.attrs = std::move(attrs);
    graph.add_node(std::move(n));
  }
};

ir::ConvAttrs conv_attrs(int64_t kernel, int64_t stride, int64_t pad) {
  ir::ConvAttrs a;
  a.kernel_h = a.kernel_w = kernel;
  a.stride_h = a.stride_w = stride;
  a.pad = {pad, pad, pad, pad};
  return a;
}

// in[1,8,8,4] f32 (1024 B) -> conv 1x1 -> c (1024) -> clip -> r (1024)
// -> add(r, in) -> out (1024, model output); with add_reads_c the add reads
// c instead of in, so c is still needed after the clip.
TestGraph conv_relu_add(bool add_reads_c) {
  TestGraph t;
  const ir::Shape shape{1, 8, 8, 4};
  const ir::TensorId in = t.activation("in", shape);
  const ir::TensorId w = t.constant("w", {4, 1, 1, 4});
  const ir::TensorId c = t.activation("c", shape);
  const ir::TensorId r = t.activation("r", shape);
  const ir::TensorId out = t.activation("out", shape);
  t.node(ir::OpType::kConv2D, {in, w}, {c}, conv_attrs(1, 1, 0));
  t.node(ir::OpType::kClip, {c}, {r}, ir::ClipAttrs{0.0f, 6.0f});
  t.node(ir::OpType::kAdd, {r, add_reads_c ? c : in}, {out});
  t.graph.inputs = {in};
  t.graph.outputs = {out};
  return t;
}

TEST(Inplace, LowersThePeakByExactlyTheElementwiseOutputSize) {
  // Ordinary execution (in lives until the add reads it):
  //   step 0 conv: in + c           = 2048
  //   step 1 clip: in + c + r       = 3072  <- peak
  //   step 2 add:  in + r + out     = 3072
  // In place: r overwrites c at the clip, out overwrites r at the add (in is
  // a model input, never overwritten): every step holds in + one 1024-byte
  // buffer = 2048. The peak drops by 1024, the size of r.
  TestGraph t = conv_relu_add(false);
  const BufferGraph bg = build_buffer_graph(t.graph);
  const Order order = given_order(bg);
  EXPECT_EQ(compute_memory_profile(bg, order).peak_bytes, 3072);
  const InplaceResult result = apply_inplace(bg, order);
  const MemoryProfile profile = compute_memory_profile(result.graph, order);
  EXPECT_EQ(profile.peak_bytes, 3072 - 1024);
  ASSERT_EQ(result.merges.size(), 2u);
  EXPECT_EQ(result.merges[0].op, 1);
  EXPECT_EQ(result.merges[1].op, 2);
  EXPECT_EQ(result.graph.buffers.size(), 2u);  // in, and c = r = out
  const int shared = result.graph.buffer_of_tensor[2];  // c
  EXPECT_EQ(result.graph.buffer_of_tensor[3], shared);  // r
  EXPECT_EQ(result.graph.buffer_of_tensor[4], shared);  // out
  EXPECT_TRUE(result.graph.buffers[static_cast<size_t>(shared)].is_model_output);
  EXPECT_EQ(result.merges[1].buffer, shared);
}

TEST(Inplace, NeverOverwritesABufferStillNeededLater) {
  // The add reads c again: the clip must not write r over c. The add may
  // write over r or c, which both die there.
  TestGraph t = conv_relu_add(true);
  const BufferGraph bg = build_buffer_graph(t.graph);
  const InplaceResult result = apply_inplace(bg, given_order(bg));
  EXPECT_NE(result.graph.buffer_of_tensor[2], result.graph.buffer_of_tensor[3]);  // c, r apart
  ASSERT_EQ(result.merges.size(), 1u);
  EXPECT_EQ(result.merges[0].op, 2);
}

TEST(Inplace, NeverOverwritesAModelInputOrAModelOutput) {
  TestGraph t;
  const ir::TensorId in = t.activation("in", {1, 16});
  const ir::TensorId a = t.activation("a", {1, 16});
  const ir::TensorId b = t.activation("b", {1, 16});
  t.node(ir::OpType::kClip, {in}, {a}, ir::ClipAttrs{0.0f, 6.0f});  // in: model input
  t.node(ir::OpType::kSigmoid, {a}, {b});                              // a: model output
  t.graph.inputs = {in};
  t.graph.outputs = {a, b};
  const BufferGraph bg = build_buffer_graph(t.graph);
  const InplaceResult result = apply_inplace(bg, given_order(bg));
  EXPECT_TRUE(result.merges.empty());
  EXPECT_EQ(result.graph.buffers.size(), 3u);
}

TEST(Inplace, NeverOverwritesTheBroadcastOperand) {
  // add(x[1,1,1,4], y[1,8,8,4]): out has y's shape, so only y may be
  // overwritten, never the smaller x.
  TestGraph t;
  const ir::TensorId in = t.activation("in", {1, 8, 8, 4});
  const ir::TensorId x = t.activation("x", {1, 1, 1, 4});
  const ir::TensorId y = t.activation("y", {1, 8, 8, 4});
  const ir::TensorId out = t.activation("out", {1, 8, 8, 4});
  t.node(ir::OpType::kMean, {in}, {x}, ir::ReduceAttrs{{1, 2}, true});
  t.node(ir::OpType::kClip, {in}, {y}, ir::ClipAttrs{0.0f, 6.0f});
  t.node(ir::OpType::kAdd, {x, y}, {out});
  t.graph.inputs = {in};
  t.graph.outputs = {out};
  const BufferGraph bg = build_buffer_graph(t.graph);
  const InplaceResult result = apply_inplace(bg, given_order(bg));
  ASSERT_EQ(result.merges.size(), 1u);
  EXPECT_EQ(result.graph.buffer_of_tensor[static_cast<size_t>(out)],
            result.graph.buffer_of_tensor[static_cast<size_t>(y)]);
}

// HMCOS's trick, which the order searches now find (schedule/order_exact.h):
// h (1024 B) is read by a clip and by a conv; the clip may write over h only
// when it is h's last reader, i.e. when the conv runs first.
//   in -> conv0 -> h;  clip(h) -> r;  conv1(h) -> c;  add(r, c) -> out
TestGraph shared_by_clip_and_conv() {
  TestGraph t;
  const ir::Shape shape{1, 8, 8, 4};
  const ir::TensorId in = t.activation("in", shape);
  const ir::TensorId h = t.activation("h", shape);
  const ir::TensorId r = t.activation("r", shape);
  const ir::TensorId c = t.activation("c", shape);
  const ir::TensorId out = t.activation("out", shape);
  t.node(ir::OpType::kConv2D, {in, t.constant("w0", {4, 1, 1, 4})}, {h}, conv_attrs(1, 1, 0));
  t.node(ir::OpType::kClip, {h}, {r}, ir::ClipAttrs{0.0f, 6.0f});
  t.node(ir::OpType::kConv2D, {h, t.constant("w1", {4, 1, 1, 4})}, {c}, conv_attrs(1, 1, 0));
  t.node(ir::OpType::kAdd, {r, c}, {out});
  t.graph.inputs = {in};
  t.graph.outputs = {out};
  return t;
}

TEST(InplaceChoices, AClipRunAfterTheOtherReaderOfItsInputWritesOverIt) {
  // Buffers: in 0, h 1, r 2, c 3, out 4. Clip (op 1) may overwrite h.
  TestGraph t = shared_by_clip_and_conv();
  const BufferGraph bg = build_buffer_graph(t.graph);
  ASSERT_EQ(bg.inplace_options[1].size(), 1u);
  EXPECT_EQ(bg.inplace_options[1][0].input_buffer, 1);
  InplaceChoices choices(bg.operators.size(), -1);
  choices[1] = 1;
  // Order conv0, conv1, clip, add (in, a model input, dies at conv0): at the
  // clip, h + c + r = 3072 plain; in place r takes h's bytes: 2048.
  const Order conv_first{0, 2, 1, 3};
  EXPECT_EQ(compute_memory_profile(bg, conv_first).steps[2].execution_bytes, 3072);
  const InplaceResult result = apply_inplace_choices(bg, conv_first, choices);
  EXPECT_EQ(compute_memory_profile(result.graph, conv_first).steps[2].execution_bytes, 2048);
  EXPECT_EQ(result.graph.buffer_of_tensor[1], result.graph.buffer_of_tensor[2]);  // h and r share
  EXPECT_EQ(list_inplace_choices(result), choices);
  // Clip before conv1: conv1 still reads h, so the choice breaks the rule.
  EXPECT_THROW(apply_inplace_choices(bg, given_order(bg), choices), InternalError);
}

// Records only: a -(D, a stride-2 depthwise option: 100 -> 25, line buffer 5)-> d
// -(E, element-wise option on d)-> e -> F -> out. D's overwrite leaves d in a's
// 100 bytes; E may then not write over d (its chain would keep 100 bytes).
BufferGraph make_shrink_then_elementwise() {
  BufferGraph bg;
  bg.buffers = {{100, -1, {0}, false, "in"}, {100, 0, {1}, false, "a"}, {25, 1, {2}, false, "d"},
                {25, 2, {3}, false, "e"},    {10, 3, {}, true, "out"}};
  bg.operators = {{"A", {0}, {1}, 0, 0}, {"D", {1}, {2}, 0, 1}, {"E", {2}, {3}, 0, 2}, {"F", {3}, {4}, 0, 3}};
  bg.inplace_options = {{}, {{1, 5}}, {{2, 0}}, {}};
  return bg;
}

TEST(InplaceChoices, ABufferHoldingALargerTensorIsNotOverwrittenAgain) {
  const BufferGraph bg = make_shrink_then_elementwise();
  const Order order = given_order(bg);
  // Plain steps: A in + a = 200, D a + d = 125, E d + e = 50, F e + out = 35.
  // D in place: a + line buffer = 105 at D, then d keeps a's 100 bytes:
  // 100 + e = 125 at E.
  const MemoryProfile shrunk = compute_memory_profile(apply_inplace_choices(bg, order, {-1, 1, -1, -1}).graph, order);
  EXPECT_EQ(shrunk.steps[1].execution_bytes, 105);
  EXPECT_EQ(shrunk.steps[2].execution_bytes, 125);
  // E in place: e takes d's 25 bytes, 25 at E.
  const MemoryProfile overwritten = compute_memory_profile(apply_inplace_choices(bg, order, {-1, -1, 2, -1}).graph, order);
  EXPECT_EQ(overwritten.steps[2].execution_bytes, 25);
  EXPECT_THROW(apply_inplace_choices(bg, order, {-1, 1, 2, -1}), InternalError);
  // The greedy keeps the peak of 200 either way; D would raise the sum of
  // the steps (465 > 410), E lowers it (385): E only.
  EXPECT_EQ(list_inplace_choices(apply_inplace(bg, order)), (InplaceChoices{-1, -1, 2, -1}));
}

TEST(InplaceChoices, KeepsOnlyTheOverwritesThePeakNeeds) {
  // conv_relu_add: both the clip's and the add's overwrites hold the peak at
  // 2048 (each of their steps is 3072 without it, see the first test).
  TestGraph t = conv_relu_add(false);
  const BufferGraph bg = build_buffer_graph(t.graph);
  const Order order = given_order(bg);
  const InplaceChoices both = list_inplace_choices(apply_inplace(bg, order));
  EXPECT_EQ(keep_choices_the_peak_needs(bg, order, both), both);
  // Records: the peak is A's step (in + a = 200) whatever E does, so E's
  // overwrite (25 at E instead of 50) is dropped.
  const BufferGraph records = make_shrink_then_elementwise();
  EXPECT_EQ(keep_choices_the_peak_needs(records, given_order(records), {-1, -1, 2, -1}),
            (InplaceChoices{-1, -1, -1, -1}));
}

// splitmix64: the same graphs on every platform.
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
};

// A random DAG over one activation shape: each node is a 1x1 conv, a clip or
// an add of earlier tensors; one or two model inputs; the last tensor and
// sometimes another are model outputs.
TestGraph make_random_graph(uint64_t seed) {
  Random rng{seed};
  TestGraph t;
  const ir::Shape shape{1, 4, 4, 8};
  std::vector<ir::TensorId> tensors;
  const size_t inputs = 1 + rng.below(2);
  for (size_t i = 0; i < inputs; ++i) {
    tensors.push_back(t.activation("in" + std::to_string(i), shape));
    t.graph.inputs.push_back(tensors.back());
  }
  const size_t nodes = 3 + rng.below(10);
  for (size_t n = 0; n < nodes; ++n) {
    const ir::TensorId a = tensors[tensors.size() - 1 - rng.below(std::min<size_t>(tensors.size(), 3))];
    const ir::TensorId out = t.activation("t" + std::to_string(n), shape);
    switch (rng.below(3)) {
      case 0:
        t.node(ir::OpType::kConv2D, {a, t.constant("w" + std::to_string(n), {8, 1, 1, 8})}, {out},
               conv_attrs(1, 1, 0));
        break;
      case 1:
        t.node(ir::OpType::kClip, {a}, {out}, ir::ClipAttrs{0.0f, 6.0f});
        break;
      default:
        t.node(ir::OpType::kAdd, {a, tensors[rng.below(tensors.size())]}, {out});
        break;
    }
    tensors.push_back(out);
  }
  t.graph.outputs.push_back(tensors.back());
  if (rng.below(2) == 0) t.graph.outputs.push_back(tensors[inputs + rng.below(nodes - 1)]);
  return t;
}

TEST(Inplace, RandomGraphsShareBuffersOnlyBetweenAnInputAndTheOutputWrittenOverItAsItDies) {
  size_t merges = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    TestGraph t = make_random_graph(seed);
    const BufferGraph bg = build_buffer_graph(t.graph);
    const Order order = given_order(bg);
    const MemoryProfile before = compute_memory_profile(bg, order);
    const InplaceResult result = apply_inplace(bg, order);
    merges += result.merges.size();
    EXPECT_LE(compute_memory_profile(result.graph, order).peak_bytes, before.peak_bytes) << "seed " << seed;
    // The original buffers each new buffer holds, in order of first step.
    std::vector<std::vector<int>> held(result.graph.buffers.size());
    for (size_t tensor = 0; tensor < bg.buffer_of_tensor.size(); ++tensor) {
      const int original = bg.buffer_of_tensor[tensor];
      if (original < 0) continue;
      std::vector<int>& list = held[static_cast<size_t>(result.graph.buffer_of_tensor[tensor])];
      if (std::find(list.begin(), list.end(), original) == list.end()) list.push_back(original);
    }
    for (std::vector<int>& list : held) {
      std::sort(list.begin(), list.end(), [&](int a, int b) {
        return before.lifetimes[static_cast<size_t>(a)].first_step < before.lifetimes[static_cast<size_t>(b)].first_step;
      });
      for (size_t k = 0; k + 1 < list.size(); ++k) {
        const Buffer& dying = bg.buffers[static_cast<size_t>(list[k])];
        const Buffer& written = bg.buffers[static_cast<size_t>(list[k + 1])];
        const Lifetime& a = before.lifetimes[static_cast<size_t>(list[k])];
        const Lifetime& b = before.lifetimes[static_cast<size_t>(list[k + 1])];
        // Overwritten exactly at its last step, by the operator that reads it
        // there, and never a model input or output.
        EXPECT_EQ(a.last_step, b.first_step) << "seed " << seed;
        EXPECT_EQ(order[static_cast<size_t>(b.first_step)], written.producer) << "seed " << seed;
        EXPECT_TRUE(std::binary_search(dying.consumers.begin(), dying.consumers.end(), written.producer))
            << "seed " << seed;
        EXPECT_GE(dying.producer, 0) << "seed " << seed << ": a model input was overwritten";
        EXPECT_FALSE(dying.is_model_output) << "seed " << seed << ": a model output was overwritten";
      }
    }
  }
  std::cout << merges << " in-place merges over 200 graphs\n";
  EXPECT_GT(merges, 100u);  // the property is not vacuous
}

TEST(LineBuffer, ThreeByThreeStrideOnePadOneHoldsTwoRows) {
  // hi(r) = r, release(r) = r + 1: rows r and r + 1 wait together.
  EXPECT_EQ(compute_line_buffer_rows(8, 8, 8, 8, ir::Window{3, 1, 1, 1}), 2);
}

TEST(LineBuffer, FiveByFivePadTwoHoldsThreeRows) {
  // release(r) = r + 2: rows r..r+2.
  EXPECT_EQ(compute_line_buffer_rows(8, 8, 8, 8, ir::Window{5, 1, 1, 2}), 3);
}

TEST(LineBuffer, StrideTwoHoldsOneRow) {
  // 8x8 -> 4x4, 3x3 pad 1: r = 0 covers input row hi = floor(3/8) = 0, last
  // read by output row floor((0+1)/2) = 0, itself: 1 row. r = 1: hi = 0,
  // release 0 < 1: written directly. r = 2, 3: hi = 1, release 1 < r.
  EXPECT_EQ(compute_line_buffer_rows(8, 8, 4, 4, ir::Window{3, 2, 1, 1}), 1);
}

TEST(LineBuffer, RejectsAnOutputLargerThanItsInput) {
  EXPECT_EQ(compute_line_buffer_rows(4, 4, 6, 6, ir::Window{1, 1, 1, 0}), -1);
}

TEST(Inplace, DepthwiseWritesOverItsInputThroughALineBuffer) {
  // in[1,8,8,4] i8 (256 B) -> conv 1x1 -> c (256) -> dw 3x3 s1 p1 -> d (256)
  // -> conv 1x1 -> out (256).
  //   ordinary: step 0 in + c = 512, step 1 c + d = 512, step 2 d + out = 512.
  //   in place at step 1: line buffer 2 rows x 8 cols x 4 ch x 1 B = 64, so
  //   step 1 = 256 + 64 = 320; peak stays 512 (steps 0 and 2) but the step
  //   drops by 192.
  TestGraph t;
  const ir::Shape shape{1, 8, 8, 4};
  const ir::TensorId in = t.activation("in", shape, ir::DType::kI8);
  const ir::TensorId w0 = t.constant("w0", {4, 1, 1, 4}, ir::DType::kI8);
  const ir::TensorId c = t.activation("c", shape, ir::DType::kI8);
  const ir::TensorId wd = t.constant("wd", {1, 3, 3, 4}, ir::DType::kI8);
  const ir::TensorId d = t.activation("d", shape, ir::DType::kI8);
  const ir::TensorId w1 = t.constant("w1", {4, 1, 1, 4}, ir::DType::kI8);
  const ir::TensorId out = t.activation("out", shape, ir::DType::kI8);
  t.node(ir::OpType::kConv2D, {in, w0}, {c}, conv_attrs(1, 1, 0));
  t.node(ir::OpType::kDepthwiseConv2D, {c, wd}, {d}, conv_attrs(3, 1, 1));
  t.node(ir::OpType::kConv2D, {d, w1}, {out}, conv_attrs(1, 1, 0));
  t.graph.inputs = {in};
  t.graph.outputs = {out};
  const BufferGraph bg = build_buffer_graph(t.graph);
  const Order order = given_order(bg);
  const InplaceResult result = apply_inplace(bg, order);
  ASSERT_EQ(result.merges.size(), 1u);
  EXPECT_EQ(result.merges[0].line_buffer_bytes, 64);
  EXPECT_EQ(result.graph.operators[1].workspace_bytes, 64);
  const MemoryProfile profile = compute_memory_profile(result.graph, order);
  EXPECT_EQ(profile.steps[1].execution_bytes, 320);
  EXPECT_EQ(profile.peak_bytes, 512);
}

TEST(Inplace, KeepsAStrideTwoDepthwiseOnlyWhenThePeakDoesNotRise) {
  // in[1,8,8,4] i8 -> conv 1x1 -> c (256) -> dw 3x3 s2 p1 -> d[1,4,4,4] (64)
  // -> conv 1x1 widening to 32 channels -> out[1,4,4,32] (512).
  //   ordinary: step 0 in + c = 512, step 1 c + d = 320, step 2 d + out = 576.
  //   in place, d would keep c's 256 bytes until step 2: 256 + 512 = 768 >
  //   576, so the merge is refused.
  TestGraph t;
  const ir::TensorId in = t.activation("in", {1, 8, 8, 4}, ir::DType::kI8);
  const ir::TensorId w0 = t.constant("w0", {4, 1, 1, 4}, ir::DType::kI8);
  const ir::TensorId c = t.activation("c", {1, 8, 8, 4}, ir::DType::kI8);
  const ir::TensorId wd = t.constant("wd", {1, 3, 3, 4}, ir::DType::kI8);
  const ir::TensorId d = t.activation("d", {1, 4, 4, 4}, ir::DType::kI8);
  const ir::TensorId w1 = t.constant("w1", {32, 1, 1, 4}, ir::DType::kI8);
  const ir::TensorId out = t.activation("out", {1, 4, 4, 32}, ir::DType::kI8);
  t.node(ir::OpType::kConv2D, {in, w0}, {c}, conv_attrs(1, 1, 0));
  t.node(ir::OpType::kDepthwiseConv2D, {c, wd}, {d}, conv_attrs(3, 2, 1));
  t.node(ir::OpType::kConv2D, {d, w1}, {out}, conv_attrs(1, 1, 0));
  t.graph.inputs = {in};
  t.graph.outputs = {out};
  const BufferGraph bg = build_buffer_graph(t.graph);
  const Order order = given_order(bg);
  EXPECT_EQ(compute_memory_profile(bg, order).peak_bytes, 576);
  const InplaceResult result = apply_inplace(bg, order);
  EXPECT_TRUE(result.merges.empty());
  EXPECT_EQ(compute_memory_profile(result.graph, order).peak_bytes, 576);
}

}  // namespace
}  // namespace tinyfit::analysis
