// `tinyfit compile MODEL --devices N ...`: the device flags, their parsing
// into devices::DeviceLimits, and the text and JSON reports of
// driver::compile_on_devices. Thin, as the rest of tools/.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "devices/device_plan.h"
#include "driver/compile_devices.h"
#include "support/diag.h"

namespace tinyfit::tools {

struct DeviceCliOptions {
  int devices = 0;                      // 0: no --devices (the single-device compile)
  std::string sram_list;                // --device-sram 128KiB[,...]: one size, or one per device
  std::string flash_list;               // --device-flash 1MiB[,...]: same; empty: not limited
  int64_t link_bytes_per_second = 0;    // --link-bytes-per-second; 0: not given
  std::string partition = "k1k2";       // --partition k1k2 | min-memory | search
  double device_mhz = 100;              // --device-mhz: instructions per second / 1e6 (latency)
};

// Limits for options.devices devices; a bad list is exit 2 naming the flag.
Result<devices::DeviceLimits> parse_device_limits(const DeviceCliOptions& options);

void print_devices_text(std::ostream& out, const ir::Graph& graph, const driver::DeviceCompileReport& report);
nlohmann::json make_devices_json(const ir::Graph& graph, const driver::DeviceCompileReport& report);

}  // namespace tinyfit::tools
