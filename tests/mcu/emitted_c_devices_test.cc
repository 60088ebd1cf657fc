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
// Two plans of it:
//  - cut after conv2 (device_split.h): device 0 holds x and conv1, conv2 and
//    their weights, device 1 holds conv3 and y; conv2's output crosses the
//    link: 8 x 8 x 8 = 512 bytes, once;
//  - the devices planner's (driver/compile_devices.h): k1/k2 on 2 devices
//    (fmh, fmh, cout) and min-memory on 4 (fmh throughout), with scatters,
//    halo exchanges and gathers, verified on the host first, then emitted
//    through driver/device_programs.h as `tinyfit compile --devices N
//    --emit c` does.
#include <gtest/gtest.h>

#include <iostream>

#include "checked_model.h"
#include "codegen/emit_devices.h"
#include "device_split.h"
#include "driver/compile_devices.h"
#include "driver/device_programs.h"
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

// Runs the devices linked; the model output, from whichever device holds
// it, must equal the reference, and each device's link must have moved
// exactly the bytes its model.h promises, `planned_bytes` in all.
void check_linked_run(const codegen::EmittedDevices& emitted, const CheckedModel& model, int64_t planned_bytes,
                      LinkKind kind, const std::string& name) {
  Result<LinkedRunReport> run = run_linked_devices(emitted, model.inputs, program_directory(name), kind);
  ASSERT_TRUE(run) << run.error().format();
  ASSERT_EQ(run->devices.size(), emitted.devices.size());
  uint64_t exchanged = 0;
  const std::vector<uint8_t>* output = nullptr;
  for (size_t d = 0; d < run->devices.size(); ++d) {
    const DeviceRunReport& device = run->devices[d];
    EXPECT_EQ(device.status, 0) << "device " << d;
    EXPECT_EQ(static_cast<int64_t>(device.bytes_sent), emitted.devices[d].link_send_bytes) << "device " << d;
    EXPECT_EQ(static_cast<int64_t>(device.bytes_received), emitted.devices[d].link_receive_bytes) << "device " << d;
    exchanged += device.bytes_sent;
    if (device.outputs.contains(0)) {
      EXPECT_EQ(output, nullptr) << "two devices hold the model output";
      output = &device.outputs.at(0);
    }
  }
  EXPECT_EQ(exchanged, static_cast<uint64_t>(planned_bytes));
  ASSERT_NE(output, nullptr) << "no device printed the model output";
  const std::string difference = describe_byte_difference(*output, model.reference.at(0));
  EXPECT_EQ(difference, "");
  std::cout << name << ": " << run->devices.size() << " devices, " << exchanged << " bytes exchanged, output "
            << (difference.empty() ? "equals" : "differs from") << " the reference\n  " << run->command << "\n";
}

void check_cut_chain(LinkKind kind) {
  if (std::string missing = find_missing_link_tools(kind); !missing.empty()) {
    GTEST_SKIP() << missing << " is not installed";
  }
  SplitChain chain;
  ASSERT_NO_FATAL_FAILURE(make_split_chain(chain));
  check_linked_run(chain.emitted, chain.model, kCrossingBytes, kind,
                   "devices/cut_chain_" + std::string(link_kind_name(kind)));
}

// The devices planner's plan of the chain on `devices` devices of 2 KiB SRAM
// each (the chain's ordinary peak is 1,024 bytes; min-memory splits every
// conv anyway), verified on the host, emitted and run linked.
void check_planned_chain(LinkKind kind, int devices, const std::string& partition = "min-memory") {
  if (std::string missing = find_missing_link_tools(kind); !missing.empty()) {
    GTEST_SKIP() << missing << " is not installed";
  }
  const CheckedModel model = make_conv_chain();
  driver::DeviceCompileOptions options;
  options.limits.sram_bytes.assign(static_cast<size_t>(devices), 2048);
  options.partition = partition;
  Result<driver::DeviceCompileReport> report = driver::compile_on_devices(model.graph, options);
  ASSERT_TRUE(report) << report.error().format();
  ASSERT_TRUE(report->verification.verified);
  int split = 0;
  std::string splits;
  for (const devices::Stage& stage : report->plan.stages) {
    if (stage.node < 0) continue;
    split += stage.split != devices::Split::kWhole ? 1 : 0;
    splits += " " + model.graph.nodes[static_cast<size_t>(stage.node)].name + " " +
              std::string(devices::split_name(stage.split));
  }
  if (partition == "min-memory") {
    EXPECT_EQ(split, 3) << "every conv split across the devices";
  }
  std::cout << devices << " devices, splits:" << splits << "\n";
  Result<driver::DevicePrograms> programs = driver::make_device_programs(model.graph, report->plan);
  ASSERT_TRUE(programs) << programs.error().format();
  Result<codegen::EmittedDevices> emitted =
      codegen::emit_device_models(programs->programs(model.graph), codegen::EmitOptions{});
  ASSERT_TRUE(emitted) << emitted.error().format();
  const int64_t planned = report->plan.count_link_bytes();
  EXPECT_EQ(emitted->link_bytes, planned);
  for (size_t d = 0; d < emitted->devices.size(); ++d) {
    EXPECT_EQ(emitted->devices[d].arena_bytes, report->plan.devices[d].arena_bytes) << "device " << d;
  }
  check_linked_run(*emitted, model, planned, kind,
                   "devices/" + partition + "_chain_" + std::to_string(devices) + "_" + std::string(link_kind_name(kind)));
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

TEST(EmittedCDevices, ACutChainOnMpiProcessesComputesTheReferenceOutput) { check_cut_chain(LinkKind::kMpi); }

TEST(EmittedCDevices, ACutChainOnQemuBoardsLinkedByUartSocketsComputesTheReferenceOutput) {
  check_cut_chain(LinkKind::kUart);
}

// Four devices, min-memory (fmh throughout): every board has three UARTs,
// one per peer (a full mesh of six sockets). Two devices run k1/k2 below
// (fmh and cout), which keeps the executable under 30 s.
TEST(EmittedCDevices, PlannedSplitsOnFourMpiProcessesComputeTheReferenceOutput) {
  check_planned_chain(LinkKind::kMpi, 4);
}

TEST(EmittedCDevices, PlannedSplitsOnFourQemuBoardsLinkedByUartSocketsComputeTheReferenceOutput) {
  check_planned_chain(LinkKind::kUart, 4);
}

TEST(EmittedCDevices, KOneKTwoSplitsOnTwoMpiProcessesComputeTheReferenceOutput) {
  check_planned_chain(LinkKind::kMpi, 2, "k1k2");
}

TEST(EmittedCDevices, KOneKTwoSplitsOnTwoQemuBoardsComputeTheReferenceOutput) {
  check_planned_chain(LinkKind::kUart, 2, "k1k2");
}

}  // namespace
}  // namespace tinyfit::mcu
