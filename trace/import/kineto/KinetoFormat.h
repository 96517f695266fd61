#pragma once
// The registry entry of PyTorch profiler (Kineto) traces: .json or .json.gz (KinetoReader.h).

#include "trace/import/ImportFormat.h"

namespace ps::trace::import {

const ImportFormat& kinetoFormat();

}  // namespace ps::trace::import
