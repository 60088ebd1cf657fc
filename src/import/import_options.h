// Options shared by every importer.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "ir/tensor.h"
#include "support/diag.h"

namespace tinyfit::import {

struct ImportOptions {
  // --input-shape NAME=1x3x224x224: fixes dynamic dimensions of model inputs.
  // The shape is in the model's own layout (NCHW for ONNX images).
  std::map<std::string, ir::Shape> input_shapes;
  // Keep a Quantize on a model input and a Dequantize on a model output. The
  // compiler drops them (DESIGN.md, accounting); golden comparisons against
  // float-I/O models keep them.
  bool keep_io_quantization = false;
  // Merge identical operators (import/merge_identical_nodes.h). Off: the
  // graph as the model gives it, for comparisons with schedulers that take it
  // so (HMCOS's peaks in bench/memory_plans.cc).
  bool merge_identical_nodes = true;
  // Receives one notice per assumption the importer makes on the user's
  // behalf (a symbolic batch dimension taken as 1); the command line prints
  // each as one "tinyfit: note:" line on stderr. Empty: notices are dropped.
  std::function<void(const Diag&)> note;
};

}  // namespace tinyfit::import
