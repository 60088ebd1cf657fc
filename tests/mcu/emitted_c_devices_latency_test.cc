// The latency search's plans run on linked QEMU boards (issue 14 §6): an int8
// inverted-bottleneck chain planned by `--partition search` on 1 device and
// on 4 (SPI and UART link rates), emitted per device and run as mps2-an386 boards linked by UART
// sockets. The outputs must equal the reference interpreter's and every
// planned byte must cross the link. Each board counts the instructions of its
// invoke and, apart, those inside its link calls (linked_devices.h), so
// invoke minus link is the device's compute; the test prints it beside the
// latency model's prediction for that device (device_latency.h). No count is
// asserted against the prediction (tests never assert timings): the figures
// are docs/benchmarks/devices.md's. Its own executable, so that the other
// devices test stays under its time limit. Label mcu.
//
// The chain, int8 NHWC: x 1x24x24x8 -> conv 3x3 pad 1 -> 16 -> depthwise 3x3
// pad 1 -> conv 1x1 -> 8 -> conv 3x3 stride 2 pad 1 -> 16 -> y 1x12x12x16.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "checked_model.h"
#include "codegen/emit_devices.h"
#include "driver/compile_devices.h"
#include "driver/device_programs.h"
#include "emitted_build.h"
#include "linked_devices.h"
#include "support/conv_test_nets.h"

namespace tinyfit::mcu {
namespace {

CheckedModel make_bottleneck_chain() {
  exec::conv_test::Net net = exec::conv_test::make_bottleneck_down_net({1, 24, 24, 8}, 16);
  net.graph.name = "bottleneck";
  Result<CheckedModel> m = make_checked_model(std::move(net.graph), std::move(net.inputs));
  EXPECT_TRUE(m) << m.error().format();
  return m ? std::move(*m) : CheckedModel{};
}

struct MeasuredRun {
  std::vector<double> predicted;   // per device: the latency model's instructions
  std::vector<uint64_t> measured;  // per device: invoke minus link instructions on its board
  std::vector<uint64_t> link;      // per device: instructions inside its link calls
  double predicted_seconds = 0;
};

// Plans the chain with the search on `devices` devices (64 KiB SRAM each,
// the link at the given rate), verifies it on the host, runs it on linked
// boards and returns what each board counted.
void run_search_plan(const CheckedModel& model, int devices, int64_t link_bytes_per_second, MeasuredRun& out) {
  driver::DeviceCompileOptions options;
  options.limits.sram_bytes.assign(static_cast<size_t>(devices), 64 * 1024);
  options.limits.link_bytes_per_second = link_bytes_per_second;
  options.partition = "search";
  Result<driver::DeviceCompileReport> report = driver::compile_on_devices(model.graph, options);
  ASSERT_TRUE(report) << report.error().format();
  ASSERT_TRUE(report->verification.verified);
  ASSERT_TRUE(report->fits());
  ASSERT_TRUE(report->latency.has_value()) << report->latency_error;
  std::string splits;
  for (const devices::OperatorChoice& c : report->plan.choices) {
    splits += " " + model.graph.nodes[static_cast<size_t>(c.node)].name + " " + std::string(devices::split_name(c.split)) +
              "/" + std::to_string(c.devices.size());
  }
  Result<driver::DevicePrograms> programs = driver::make_device_programs(model.graph, report->plan);
  ASSERT_TRUE(programs) << programs.error().format();
  Result<codegen::EmittedDevices> emitted =
      codegen::emit_device_models(programs->programs(model.graph), codegen::EmitOptions{});
  ASSERT_TRUE(emitted) << emitted.error().format();
  Result<LinkedRunReport> run = run_linked_devices(*emitted, model.inputs,
                                                   program_directory("devices/search_" + std::to_string(devices) + "_" + std::to_string(link_bytes_per_second)),
                                                   LinkKind::kUart);
  ASSERT_TRUE(run) << run.error().format();
  ASSERT_EQ(run->devices.size(), static_cast<size_t>(devices));
  uint64_t exchanged = 0;
  const std::vector<uint8_t>* output = nullptr;
  for (size_t d = 0; d < run->devices.size(); ++d) {
    const DeviceRunReport& device = run->devices[d];
    EXPECT_EQ(device.status, 0) << "device " << d;
    EXPECT_EQ(static_cast<int64_t>(device.bytes_sent), emitted->devices[d].link_send_bytes) << "device " << d;
    exchanged += device.bytes_sent;
    if (device.outputs.contains(0)) output = &device.outputs.at(0);
    EXPECT_GE(device.instructions, device.link_instructions) << "device " << d;
    // A device that computes a part counts instructions outside its link calls.
    if (report->latency->device_instructions[d] > 0) {
      EXPECT_GT(device.compute_instructions(), 0u) << "device " << d;
    }
    out.predicted.push_back(report->latency->device_instructions[d]);
    out.measured.push_back(device.compute_instructions());
    out.link.push_back(device.link_instructions);
  }
  EXPECT_EQ(exchanged, static_cast<uint64_t>(report->plan.count_link_bytes()));
  ASSERT_NE(output, nullptr) << "no device printed the model output";
  EXPECT_EQ(describe_byte_difference(*output, model.reference.at(0)), "");
  out.predicted_seconds = report->latency->seconds;
  std::cout << devices << " devices (search, 64 KiB each, " << link_bytes_per_second << " bytes/s):" << splits << "; " << exchanged
            << " bytes exchanged; predicted latency " << out.predicted_seconds * 1e3 << " ms\n";
  for (size_t d = 0; d < out.measured.size(); ++d) {
    std::cout << "  device " << d << ": compute predicted " << static_cast<uint64_t>(out.predicted[d])
              << " instructions, measured " << out.measured[d] << " (link calls " << out.link[d] << ")\n";
  }
  std::cout << "  " << run->command << "\n";
}

TEST(EmittedCDevicesLatency, SearchPlansOnOneAndFourBoardsComputeTheReferenceAndCountTheirCompute) {
  if (std::string missing = find_missing_link_tools(LinkKind::kUart); !missing.empty()) {
    GTEST_SKIP() << missing << " is not installed";
  }
  const CheckedModel model = make_bottleneck_chain();
  MeasuredRun one, four, four_slow;
  ASSERT_NO_FATAL_FAILURE(run_search_plan(model, 1, 1250000, one));
  ASSERT_NO_FATAL_FAILURE(run_search_plan(model, 4, 1250000, four));  // SPI at 10 Mbit/s
  // UART at 1 Mbit/s: the link costs more than splitting saves, so some
  // devices may stay idle (their folders build with no arena).
  ASSERT_NO_FATAL_FAILURE(run_search_plan(model, 4, 125000, four_slow));
  // One board computes the whole chain and makes no link call.
  EXPECT_EQ(one.link.at(0), 0u);
  const uint64_t slowest = *std::max_element(four.measured.begin(), four.measured.end());
  std::cout << "measured compute: one board " << one.measured[0] << " instructions, the busiest of four " << slowest
            << " (" << static_cast<double>(slowest) / static_cast<double>(one.measured[0]) << "x)\n";
}

}  // namespace
}  // namespace tinyfit::mcu
