// The networks of the model zoo, one file each (zoo_mobilenetv2.cc,
// zoo_mcunet.cc). zoo.cc parses names and validates every parameter before
// calling these, so they only check their own invariants.
#pragma once

#include <cstdint>
#include <string>

#include <onnx/onnx_pb.h>

#include "import/zoo_builder.h"

namespace tinyfit::import {

struct ZooModelName {
  std::string canonical;    // with its dtype suffix: graph name, e.g. "mobilenetv2-224-int8"
  std::string seed;         // without it: seeds the weights, shared by -int8 and -f32
  std::string description;  // one line
  ZooDType dtype = ZooDType::kInt8;
};

// MobileNetV2 (Sandler et al. 2018) as torchvision builds it, batch norm folded
// into conv biases. Requires: resolution >= 1, width > 0.
onnx::ModelProto build_mobilenetv2(const ZooModelName& name, int64_t resolution, double width);

// Channel rounding of the MobileNetV2 reference (_make_divisible(v, 8)).
int64_t round_mobilenetv2_channels(double channels);

// MCUNet 320KB-SRAM / 1MB-flash ImageNet model (Lin et al. 2020), from the
// ProxylessNAS-format config transcribed in zoo_mcunet.cc.
onnx::ModelProto build_mcunet_320kb_imagenet(const ZooModelName& name);

}  // namespace tinyfit::import
