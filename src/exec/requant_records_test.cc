// The requantisation records a conv-family call emits into flash are the
// ones its kernel reads: one family per call (tinyfit/conv.h: the im2col and
// depthwise __dsp kernels and the fused inverted bottleneck's __dsp stages
// read params->requant_folded when it is set and then never params->requant;
// every other kernel reads only params->requant), and
// no array that nothing references. MobileNetV2-224's ordinary program once
// kept both families for 50 of its 52 convolutions, 361,120 bytes of plain
// records no call read, and overflowed the emulated board's 4 MiB flash.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analysis/buffer_graph.h"
#include "exec/add_kernel_workspaces.h"
#include "exec/kernel_call.h"
#include "plan/build_plan.h"
#include "plan/plan_memory.h"
#include "support/inverted_bottleneck_nets.h"
#include "support/overlap_plans.h"
#include "support/recording_emitter.h"

namespace tinyfit::exec {
namespace {

using conv_test::Layer;
using conv_test::Net;
using testing::RecordingEmitter;

// The kernels that read folded records (without "tf_<dtype>_").
const std::set<std::string>& folded_readers() {
  static const std::set<std::string> names = {"conv2d_im2col__dsp", "conv2d_im2col_rows__dsp", "dwconv2d_direct__dsp",
                                              "dwconv2d_direct_rows__dsp", "dwconv2d_direct_inplace__dsp",
                                              "inverted_bottleneck_segment__dsp"};
  return names;
}

bool is_null_pointer(const std::string& expression) { return expression.ends_with(")0"); }

struct RecordCount {
  int folded = 0;  // conv params with folded records
  int plain = 0;   // with plain ones
};

// Emits every call of `plan` and checks each conv params struct: at most one
// family of records, folded ones only for a kernel that reads them, and
// every array it defined referenced by a struct field or a call argument.
RecordCount check_emitted_records(const ir::Graph& graph, const plan::Plan& plan) {
  RecordCount count;
  for (const plan::Step& step : plan.steps) {
    const plan::KernelCall& call = step.call();
    Result<std::unique_ptr<PreparedKernel>> kernel = prepare_kernel({graph, plan, call});
    EXPECT_TRUE(kernel.has_value()) << kernel.error().format();
    if (!kernel) continue;
    RecordingEmitter emitter;
    const Status emitted = (*kernel)->emit(emitter);
    EXPECT_TRUE(emitted.has_value()) << emitted.error().format();
    EXPECT_EQ(emitter.calls.size(), 1u);
    if (emitter.calls.size() != 1) continue;
    const std::string& function = emitter.calls[0].function;
    const std::string name = function.substr(function.find('_', 3) + 1);  // past "tf_<dtype>_"
    std::string references;
    for (const std::string& argument : emitter.calls[0].arguments) references += argument + " ";
    for (const auto& [struct_name, s] : emitter.structs) {
      for (const auto& [field, value] : s.fields) references += value + " ";
      if (s.c_type != "tf_conv_params") continue;
      const std::string plain = emitter.field_of("&" + struct_name, "requant");
      const std::string folded = emitter.field_of("&" + struct_name, "requant_folded");
      EXPECT_TRUE(is_null_pointer(plain) || is_null_pointer(folded))
          << function << " of node '" << graph.nodes[static_cast<size_t>(call.node)].name
          << "': plain and folded records, " << plain << " and " << folded;
      if (!is_null_pointer(folded)) {
        EXPECT_TRUE(folded_readers().contains(name)) << function << " reads no folded records: " << folded;
        ++count.folded;
      }
      if (!is_null_pointer(plain)) ++count.plain;
    }
    for (const auto& [array_name, array] : emitter.arrays) {
      EXPECT_NE(references.find(array_name), std::string::npos) << function << ": " << array_name << " unreferenced";
    }
  }
  return count;
}

// Conv2D 3x3 (10 channels: im2col pairs), DepthwiseConv2D 3x3 over 10
// channels (groups of four and two channels alone), Conv2D 1x1 to 7 (a pair
// partner missing), then a fully connected layer.
Net make_net(ir::DType dtype) {
  Net net;
  net.dtype = dtype;
  Layer conv;
  conv.out_channels = 10;
  conv.kernel_h = conv.kernel_w = 3;
  conv.pad = {1, 1, 1, 1};
  conv.activation = conv_test::relu6();
  Layer depthwise = conv;
  depthwise.op = ir::OpType::kDepthwiseConv2D;
  Layer pointwise;
  pointwise.out_channels = 7;
  Layer fc;
  fc.op = ir::OpType::kFullyConnected;
  fc.out_channels = 5;
  ir::TensorId x = net.add_input({1, 9, 9, 6});
  x = net.add_layer("conv", x, conv);
  x = net.add_layer("depthwise", x, depthwise);
  x = net.add_layer("pointwise", x, pointwise);
  net.set_output(net.add_layer("fc", x, fc, /*flatten=*/true));
  return net;
}

TEST(RequantRecords, AnOrdinaryPlansCallsEmitOnlyTheRecordsTheirKernelsRead) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8}) {
    SCOPED_TRACE(std::string(ir::dtype_name(dtype)));
    const Net net = make_net(dtype);
    const analysis::BufferGraph bg = analysis::build_buffer_graph(net.graph);
    plan::Plan plan = plan::build_operator_plan(net.graph, bg, analysis::given_order(bg));
    ASSERT_TRUE(add_kernel_workspaces(net.graph, plan).has_value());
    ASSERT_TRUE(plan::place_plan(plan, "greedy-by-size", {}).has_value());
    const RecordCount count = check_emitted_records(net.graph, plan);
    // The im2col and depthwise kernels fold (the test's quantisation folds);
    // the fully connected kernel reads plain records.
    EXPECT_GE(count.folded, 3);
    EXPECT_GE(count.plain, 1);
  }
}

TEST(RequantRecords, SegmentKernelsGetPlainRecordsAndTheFusedKernelsStagesFoldedOnes) {
  // A fused inverted bottleneck (its three stages fold: a 1x1 expand, always
  // computed in groups) and a depthwise alone, written over their input.
  Net bottleneck;
  bottleneck.dtype = ir::DType::kI8;
  bottleneck.set_output(conv_test::add_inverted_bottleneck(bottleneck, "block", bottleneck.add_input({1, 8, 8, 4}), {}));
  Net depthwise;
  Layer layer;
  layer.op = ir::OpType::kDepthwiseConv2D;
  layer.out_channels = 8;
  layer.kernel_h = layer.kernel_w = 3;
  layer.pad = {1, 1, 1, 1};
  depthwise.set_output(depthwise.add_layer("depthwise", depthwise.add_input({1, 6, 6, 8}), layer));
  for (const Net* net : {&bottleneck, &depthwise}) {
    Result<plan::Plan> plan = plan::testing::make_one_call_overlap_plan(net->graph, plan::Traversal::kAscending);
    ASSERT_TRUE(plan.has_value()) << plan.error().format();
    const RecordCount count = check_emitted_records(net->graph, *plan);
    EXPECT_EQ(count.folded, net == &bottleneck ? 3 : 0);
    EXPECT_EQ(count.plain, net == &bottleneck ? 0 : 1);
  }
}

}  // namespace
}  // namespace tinyfit::exec
