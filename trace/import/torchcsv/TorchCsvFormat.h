#pragma once
// The registry entry of torch.distributed.pipelining schedule CSVs. Its text parser is in this
// folder (TorchCsvRows.h: rows of actions in trace types, the kind encoding, the form). The CSV
// is a plan, not a profile: it has no timings to make a RawRankTrace of, so `read` (a profile
// reader) stays null and the entry is of kind Schedule; runtime::importRun turns the rows into a
// plan (runtime/plan/TorchCsv.h) and simulates it (runtime::runPlan).

#include "trace/import/ImportFormat.h"

namespace ps::trace::import {

const ImportFormat& torchCsvFormat();

}  // namespace ps::trace::import
