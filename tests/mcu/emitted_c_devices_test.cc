// Multi-device emitted C run as linked programs (issue 14 §5): a small int8
// conv chain split across two devices, emitted as one folder per device, each
// built with one of the two link implementations tinyfit ships and run
// together; the model output must equal the reference interpreter's byte for
// byte, and every byte the plan exchanges must cross the link. Label mcu:
// release suite only (the programs run outside the sanitizers anyway).
//
// The chain, int8 NHWC:
//   x 1x8x8x4 -> conv1 3x3 pad 1 -> 1x8x8x8 -> conv2 3x3 pad 1 -> 1x8x8x8
//             -> conv3 1x1 -> y 1x8x8x4
// Cut after conv2 (device_split.h): device 0 holds x and conv1, conv2 and
// their weights, device 1 holds conv3 and y; conv2's output crosses the
// link: 8 x 8 x 8 = 512 bytes, once.
#include <gtest/gtest.h>

#include <iostream>

#include "checked_model.h"
#include "codegen/emit_devices.h"
#include "device_split.h"
#include "emitted_build.h"
#include "linked_devices.h"
#include "support/conv_test_nets.h"

namespace tinyfit::mcu {
namespace {

constexpr int64_t kCrossingBytes = 8 * 8 * 8;  // conv2's output, int8

CheckedModel make_conv_chain() {
  exec::conv_test::Net net;
  exec::conv_test::Layer conv3x3, conv1x1;
  conv3x3.out_channels = 8, conv3x3.kernel_h = conv3x3.kernel_w = 3, conv3x3.pad = {1, 1, 1, 1};
  conv3x3.activation = exec::conv_test::relu6();
  conv1x1.out_channels = 4;
  ir::TensorId t = net.add_layer("conv1", net.add_input({1, 8, 8, 4}), conv3x3);
  t = net.add_layer("conv2", t, conv3x3);
  net.set_output(net.add_layer("conv3", t, conv1x1));
  net.graph.name = "chain";
  Result<CheckedModel> m = make_checked_model(std::move(net.graph), std::move(net.inputs));
  EXPECT_TRUE(m) << m.error().format();
  return m ? std::move(*m) : CheckedModel{};
}

struct SplitChain {
  CheckedModel model;
  DeviceSplit split;
  codegen::EmittedDevices emitted;
};

void make_split_chain(SplitChain& out) {
  out.model = make_conv_chain();
  Result<plan::Plan> whole = build_technique_plan(out.model.graph, Technique::kOrdinary);
  ASSERT_TRUE(whole) << whole.error().format();
  Result<DeviceSplit> split = split_plan_at_step(*whole, 2);
  ASSERT_TRUE(split) << split.error().format();
  out.split = std::move(*split);
  Result<codegen::EmittedDevices> emitted =
      codegen::emit_device_models(out.split.programs(out.model.graph), codegen::EmitOptions{});
  ASSERT_TRUE(emitted) << emitted.error().format();
  out.emitted = std::move(*emitted);
  ASSERT_EQ(out.emitted.link_bytes, kCrossingBytes);
}

void check_linked_run(LinkKind kind) {
  if (std::string missing = find_missing_link_tools(kind); !missing.empty()) {
    GTEST_SKIP() << missing << " is not installed";
  }
  SplitChain chain;
  ASSERT_NO_FATAL_FAILURE(make_split_chain(chain));
  const std::string name = "devices/chain_" + std::string(link_kind_name(kind));
  Result<LinkedRunReport> run = run_linked_devices(chain.emitted, chain.model.inputs, program_directory(name), kind);
  ASSERT_TRUE(run) << run.error().format();
  ASSERT_EQ(run->devices.size(), 2u);
  uint64_t exchanged = 0;
  for (size_t d = 0; d < run->devices.size(); ++d) {
    const DeviceRunReport& device = run->devices[d];
    const codegen::EmittedModel& model = chain.emitted.devices[d];
    EXPECT_EQ(device.status, 0) << "device " << d;
    EXPECT_EQ(static_cast<int64_t>(device.bytes_sent), model.link_send_bytes) << "device " << d;
    EXPECT_EQ(static_cast<int64_t>(device.bytes_received), model.link_receive_bytes) << "device " << d;
    exchanged += device.bytes_sent;
  }
  EXPECT_EQ(exchanged, static_cast<uint64_t>(kCrossingBytes));
  ASSERT_TRUE(run->devices[1].outputs.contains(0)) << "device 1 holds the model output";
  EXPECT_FALSE(run->devices[0].outputs.contains(0));
  const std::string difference = describe_byte_difference(run->devices[1].outputs.at(0), chain.model.reference.at(0));
  EXPECT_EQ(difference, "");
  std::cout << link_kind_name(kind) << ": 2 devices, " << exchanged << " bytes exchanged, output "
            << (difference.empty() ? "equals" : "differs from") << " the reference\n  " << run->command << "\n";
}

TEST(EmittedCDevices, EachDeviceFolderHoldsItsOwnArenaWeightsAndLinkCalls) {
  SplitChain chain;
  ASSERT_NO_FATAL_FAILURE(make_split_chain(chain));
  ASSERT_EQ(chain.emitted.devices.size(), 2u);
  for (size_t d = 0; d < 2; ++d) {
    const codegen::EmittedModel& model = chain.emitted.devices[d];
    EXPECT_EQ(model.prefix, "tinyfit_chain_device" + std::to_string(d));
    EXPECT_EQ(model.arena_bytes, chain.split.plans[d].arena_bytes);
  }
  // conv1 and conv2 (weights 8x3x3x4 and 8x3x3x8 bytes) on device 0, conv3
  // (4x1x1x8) on device 1: the weights split, not copied.
  EXPECT_GT(chain.emitted.devices[0].constant_bytes, 8 * 9 * (4 + 8));
  EXPECT_LT(chain.emitted.devices[1].constant_bytes, 8 * 9 * 4);
  EXPECT_EQ(chain.emitted.devices[0].input_indices, std::vector<size_t>{0});
  EXPECT_TRUE(chain.emitted.devices[0].output_indices.empty());
  EXPECT_TRUE(chain.emitted.devices[1].input_indices.empty());
  EXPECT_EQ(chain.emitted.devices[1].output_indices, std::vector<size_t>{0});
  EXPECT_EQ(chain.emitted.devices[0].link_send_bytes, kCrossingBytes);
  EXPECT_EQ(chain.emitted.devices[1].link_receive_bytes, kCrossingBytes);
}

TEST(EmittedCDevices, MpiProcessesLinkedComputeTheReferenceOutput) { check_linked_run(LinkKind::kMpi); }

TEST(EmittedCDevices, QemuBoardsLinkedByUartSocketsComputeTheReferenceOutput) { check_linked_run(LinkKind::kUart); }

}  // namespace
}  // namespace tinyfit::mcu
