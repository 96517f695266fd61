#pragma once
// The registry entry of torch.distributed.pipelining schedule CSVs. The CSV is a plan, not a
// profile: runtime::importRun reads and simulates it (runtime/plan/TorchCsv.h, runtime::runPlan),
// so this entry is of kind Schedule and has no reader here.

#include "trace/import/ImportFormat.h"

namespace ps::trace::import {

const ImportFormat& torchCsvFormat();

}  // namespace ps::trace::import
