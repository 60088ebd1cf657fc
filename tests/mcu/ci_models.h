// The models whose emitted C CI builds and runs (issue 5, "done means"): the
// four MLPerf Tiny models, one MCUNet model and MobileNetV2 at a size an
// emulated board runs in seconds. Shared by the host and QEMU tests and by
// bench/mcu_latency, so the table and CI cover the same programs.
#pragma once

#include <string>
#include <vector>

namespace tinyfit::mcu {

struct CiModel {
  std::string name;   // short name for test names and the table ("kws")
  std::string model;  // MODEL as the command line takes it
  bool on_m7 = false; // also run on the Cortex-M7 board (CI budget: a couple)
  // Also run the segment-overlap plan on the Cortex-M4 board (CI budget: the
  // models whose overlap plans fuse inverted bottlenecks; the host test runs all).
  bool overlap_on_board = false;
  // Also the motes plan (row or token loops) on the host and the Cortex-M4
  // board: the models whose default compile finds one within the latency budget.
  bool motes = false;
};

inline std::vector<CiModel> list_ci_models() {
  const std::string shared = std::string(TINYFIT_MODELS_DIR) + "/tflite/";
  return {
      {"kws", shared + "mlperf_tiny/kws_ref_model_int8.tflite", true},
      {"vww", shared + "mlperf_tiny/vww_96_int8.tflite", false},
      {"resnet8", shared + "mlperf_tiny/resnet8_int8.tflite", true, false, true},
      {"ad01", shared + "mlperf_tiny/ad01_int8.tflite", false},
      {"mcunet_vww", shared + "mcunet/mcunet-5fps_vww.tflite", false, true, true},
      {"mobilenetv2_96_w035", "zoo:mobilenetv2-96-w0.35", false, true},
      {"bert_tiny_8", "zoo:bert-tiny-8", false, false, true},
  };
}

// The SRAM budget every board program links against: the RAM region's LENGTH
// (mps2.ld). 320 KiB is the STM32F746's SRAM, MCUNet's evaluation board
// (MCUNet paper, §4); the largest CI program, MobileNetV2-96-w0.35 ordinary,
// needs 139,716 bytes of it (docs/benchmarks/mcu_latency.md).
inline constexpr int64_t kCiBoardRamBytes = 320 * 1024;
// The board's flash (mps2.ld's FLASH region, mps2-an386's 4 MiB): the flash
// budget of the benches' programs (tinyfit compile --flash).
inline constexpr int64_t kCiBoardFlashBytes = 4 * 1024 * 1024;

}  // namespace tinyfit::mcu
