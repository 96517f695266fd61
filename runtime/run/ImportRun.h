#pragma once
// The one import (issue 33 §2): `pipescope-cli import` and the app's File → Import hand the same
// request to importRun, which owns every format of trace/import/ImportFormats.h. The front ends
// only parse their input (flags, the dialog) and show what comes back.
//   Profiles (nsys, kineto): read every file → recognise and align (assembleImport, in memory) →
//   open the file → write one run.
//   Schedules (torch-csv): parse and simulate the plan with the request's costs (runPlan).
// Nothing touches the file before the input has been read and checked, and an import that does
// not finish (bad input, a failed write, cancel) leaves no run of its own in the file: a file it
// created is removed again unless another writer appended a run or opened it meanwhile
// (trace/store/AbandonedWrite.h).

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"
#include "trace/import/ClockAlignment.h"
#include "trace/store/TraceStore.h"

namespace ps::runtime {

struct ImportRunRequest {
  // An import format's name ("nsys", "kineto", "torch-csv"); empty: the format every file is
  // guessed to be (trace::import::guessImportFormat).
  std::string format;
  std::vector<std::string> files;
  std::string name;  // the run's name; empty: trace::import::defaultImportName
  // Profiles only: how the ranks' clocks are aligned, which file is which rank (each FILE one of
  // `files`), label-mapping rules, and a single-process trace's threads as ranks. A schedule has
  // its ranks and timing in the file: explicit ranks and threads as ranks are refused for it,
  // alignment and rules do not apply.
  trace::import::AlignMode align = trace::import::AlignMode::Auto;
  std::map<std::string, int> explicitRanks;
  std::string rulesFile;
  bool threadsAsRanks = false;
  unsigned readThreads = 0;  // files read at once (0: one per core)
  // Schedules only: the costs, links and steps the plan is simulated with (PlanSpec's uniform
  // costs, costsFile, steps); its scheduleFile is the request's file.
  PlanSpec simulation;
};

// Where the run is appended: the trace file at `path`, created when missing.
struct ImportTarget {
  std::string path;
};

// Progress by stage, fraction 0..1, one call at a time: from the thread that calls importRun, or
// while several files are read at once from the reading threads. Profiles: "read", "align",
// "write"; schedules: "plan", "run", "write". Throttling is the caller's business.
using ImportProgress = std::function<void(std::string_view stage, double fraction)>;

struct ImportRunResult {
  std::string format;  // the format imported (the one guessed when the request named none)
  std::string name;    // the run's name
  // The run written. None when writing failed or was cancelled: `failure` says why, and the file
  // holds no run of this import.
  std::optional<std::int64_t> runId;
  std::string failure;
  // A schedule, simulated: its ops follow the file's order, there is nothing recognised to sum up.
  bool simulated = false;
  // Lines for people: what was recognised (profiles: trace::import::formatImportSummary) or the
  // plan's shape (schedules). Text from the files is terminal-safe.
  std::string summary;
  std::vector<std::string> notes;     // schedules: what the plan's builder wants a person to know
  std::vector<std::string> warnings;  // e.g. a file that could not be taken back
  std::optional<trace::TraceStore> store;  // written: the store, still open, for reading back
};

// An error: refused or failed before anything was written (an unknown format, a bad flag value,
// a file that cannot be read or recognised, cancelled before writing): the file is as it was. A
// result: the run written, or why writing it failed. `cancel` (optional) is polled throughout;
// set it to stop: the error or failure then is "import cancelled".
[[nodiscard]] Result<ImportRunResult> importRun(const ImportRunRequest& request,
                                                const ImportTarget& target,
                                                const ImportProgress& progress = {},
                                                const std::atomic<bool>* cancel = nullptr);

}  // namespace ps::runtime
