#pragma once
// The shared half of every import (issue 6): raw per-rank profiles in, one aligned run out.
//   assignRanks -> buildRankOps (recognition) -> alignClocks -> common origin and steps ->
//   splitPeerWaits -> ImportedRun (in memory) -> writeImportedRun (one run in the store).
// Nothing touches the output file until the whole import has succeeded in memory, so bad
// input never leaves a half-written run behind.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/Result.h"
#include "trace/analysis/FigureCoverage.h"
#include "trace/import/ClockAlignment.h"
#include "trace/import/OpBuilder.h"
#include "trace/import/OpRecognizer.h"
#include "trace/import/RankAssignment.h"
#include "trace/import/RawTrace.h"
#include "trace/store/TraceWriter.h"

namespace ps::trace {
class TraceStore;
}

namespace ps::trace::import {

struct ImportOptions {
  std::string format;  // "kineto" | "nsys": the run's source
  std::string name;    // run name; default "<format> import: <first file>"
  AlignMode align = AlignMode::Auto;
  std::map<std::string, int> explicitRanks;  // --rank FILE=N
  std::string rulesFile;                     // for config_json; the rules are in `recognizer`
  OpRecognizer recognizer;
  // A single-process trace whose pipeline stages run on threads (one process, several threads
  // holding compute) imports each such thread as a rank, ordered by thread id.
  bool threadsAsRanks = false;
};

struct ImportedFile {
  std::string file;
  RankSource rank;
  std::vector<std::string> warnings;  // the reader's
};

// A residual clock skew above this share of the step gets a warning: cross-rank timing (waits,
// the bubble) is then not to be trusted.
inline constexpr double kResidualSkewWarnShare = 0.10;

struct ImportedRun {
  RunHeader header;
  std::vector<OpRecord> ops;  // on the common axis (0 = earliest event), by rank then start
  std::vector<MemorySample> memory;
  RecognitionStats stats;
  ClockAlignment alignment;
  std::vector<ImportedFile> files;  // one per profile, in stored-rank order
  int steps = 0;
  std::int64_t peerWaits = 0;
  std::int64_t stepSpanNs = 0;        // mean step span of the compute ops (of all ops without any)
  BusyCoverage coverage;              // recognised compute's share of the busy time
  std::vector<std::string> notes;     // e.g. how threads became ranks
  std::vector<std::string> warnings;  // the import's own: low coverage, residual skew
};

// Polls `control`'s cancel flag during recognition (every few thousand events); the error then is
// "import cancelled".
Result<ImportedRun> assembleImport(std::vector<RawRankTrace> traces, const ImportOptions& options,
                                   const ReadControl& control = {});

// Appends the run; on failure or cancel the partly written run is deleted again.
Result<std::int64_t> writeImportedRun(TraceStore& store, const ImportedRun& run,
                                      const ReadControl& control = {});

// A few lines for people: ranks, steps, ops by kind, unknown labels, clock offsets, compute
// coverage, notes and warnings. Text from the files (labels, paths) goes through terminalSafe.
std::string formatImportSummary(const ImportedRun& run, std::size_t maxUnknownLabels = 10);

}  // namespace ps::trace::import
