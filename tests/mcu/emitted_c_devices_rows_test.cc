// `--partition rows` emitted per device and run as linked programs (issue 14
// §5): a small int8 chain compiled by driver/compile_device_rows.h on two
// devices (every band and the tail through the single-device pipeline),
// emitted through driver/device_row_programs.h as `tinyfit compile --devices
// 2 --partition rows --emit c` does, each device given its rows of the input
// (with their halo), and run with each of the two link implementations: MPI
// processes and QEMU mps2-an386 boards linked by UART sockets. The output on
// device 0 must equal the reference interpreter's byte for byte, and the
// devices must exchange exactly the bytes the plan gathers and scatters.
// Label mcu (whole-model runs are bench/devices_rows_boards.sh's).
//
// The chain, int8 NHWC:
//   x 1x16x16x4 -> conv 3x3 pad 1 -> 8 -> depthwise 3x3 pad 1 -> conv 1x1 -> 8
//     -> conv 3x3 stride 2 pad 1 -> 16 -> y 1x8x8x16
// On 2 devices of 2,112 bytes (the ordinary peak is the first conv's
// 1,024-byte input and 2,048-byte output, 3,072 bytes) the tail after the
// first conv does not fit device 0, so the head is the conv and the
// depthwise: each band recomputes the depthwise's halo row. The link costs
// nothing here (no rate given), so split-tail runs the 1x1 conv by bands
// again: device 0 gathers the depthwise's output, scatters the rows back,
// gathers the 1x1's and runs the last conv.
#include <gtest/gtest.h>

#include <iostream>

#include "checked_model.h"
#include "codegen/emit_devices.h"
#include "driver/compile_device_rows.h"
#include "driver/device_row_programs.h"
#include "emitted_build.h"
#include "linked_devices.h"
#include "support/conv_test_nets.h"

namespace tinyfit::mcu {
namespace {

CheckedModel make_chain() {
  exec::conv_test::Net net = exec::conv_test::make_bottleneck_down_net({1, 16, 16, 4}, 8);
  net.graph.name = "rows_chain";
  Result<CheckedModel> m = make_checked_model(std::move(net.graph), std::move(net.inputs));
  EXPECT_TRUE(m) << m.error().format();
  return m ? std::move(*m) : CheckedModel{};
}

void check_rows_chain(LinkKind kind) {
  if (std::string missing = find_missing_link_tools(kind); !missing.empty()) {
    GTEST_SKIP() << missing << " is not installed";
  }
  const CheckedModel model = make_chain();
  driver::RowsCompileOptions options;
  options.limits.sram_bytes.assign(2, 2112);
  Result<driver::RowsCompileReport> report = driver::compile_device_rows(model.graph, options);
  ASSERT_TRUE(report) << report.error().format();
  ASSERT_TRUE(report->verification.verified);
  ASSERT_TRUE(report->fits()) << driver::describe_rows_shortfall(*report);
  ASSERT_GE(report->head_nodes, 2) << "the bands no longer recompute a halo: another SRAM would";
  ASSERT_GT(report->link_bytes, 0);
  ASSERT_GE(report->count_stages(), 2) << "the tail no longer runs by bands again: the scatter would go untested";
  Result<driver::RowPrograms> programs = driver::make_row_programs(*report);
  ASSERT_TRUE(programs) << programs.error().format();
  Result<codegen::EmittedDevices> emitted =
      codegen::emit_device_models(programs->programs(), codegen::EmitOptions{});
  ASSERT_TRUE(emitted) << emitted.error().format();
  ASSERT_EQ(emitted->devices.size(), 2u);
  EXPECT_EQ(emitted->link_bytes, report->link_bytes);
  for (size_t d = 0; d < 2; ++d) {
    // Device 0's arena holds its band's plan, then the tail's: the larger.
    EXPECT_EQ(emitted->devices[d].arena_bytes, report->sram_bytes[d]) << "device " << d;
    EXPECT_EQ(emitted->devices[d].input_indices, std::vector<size_t>{0}) << "device " << d;
  }
  EXPECT_EQ(emitted->devices[0].output_indices, std::vector<size_t>{0});
  EXPECT_TRUE(emitted->devices[1].output_indices.empty());

  const std::string name = "devices/rows_chain_" + std::string(link_kind_name(kind));
  Result<LinkedRunReport> run = run_linked_devices(
      *emitted, driver::crop_band_inputs(model.graph, *report, model.inputs), program_directory(name), kind);
  ASSERT_TRUE(run) << run.error().format();
  ASSERT_EQ(run->devices.size(), 2u);
  for (size_t d = 0; d < 2; ++d) {
    EXPECT_EQ(run->devices[d].status, 0) << "device " << d;
    EXPECT_EQ(static_cast<int64_t>(run->devices[d].bytes_sent), emitted->devices[d].link_send_bytes) << "device " << d;
    EXPECT_EQ(static_cast<int64_t>(run->devices[d].bytes_received), emitted->devices[d].link_receive_bytes)
        << "device " << d;
  }
  EXPECT_EQ(static_cast<int64_t>(run->devices[0].bytes_sent + run->devices[1].bytes_sent), report->link_bytes);
  ASSERT_TRUE(run->devices[0].outputs.contains(0)) << "device 0 printed no model output";
  const std::string difference = describe_byte_difference(run->devices[0].outputs.at(0), model.reference.at(0));
  EXPECT_EQ(difference, "");
  std::cout << name << ": cut after " << report->head_nodes << " operators, " << report->count_stages()
            << " stage(s) of bands, SRAM " << report->sram_bytes[0] << " / "
            << report->sram_bytes[1] << " bytes, " << report->link_bytes << " bytes exchanged, output "
            << (difference.empty() ? "equals" : "differs from") << " the reference\n  " << run->command << "\n";
}

TEST(EmittedCDevicesRows, BandsOnTwoMpiProcessesComputeTheReferenceOutput) { check_rows_chain(LinkKind::kMpi); }

TEST(EmittedCDevicesRows, BandsOnTwoQemuBoardsLinkedByUartSocketsComputeTheReferenceOutput) {
  check_rows_chain(LinkKind::kUart);
}

}  // namespace
}  // namespace tinyfit::mcu
