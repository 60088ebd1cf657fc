// The flatc-generated reader for tflite_schema.fbs (built into
// <build>/src/import/generated/import/), behind one include that silences the
// warnings generated code trips under our -Werror flags.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "import/tflite_schema_generated.h"
#pragma GCC diagnostic pop
