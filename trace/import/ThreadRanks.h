#pragma once
// Threads as ranks (issue 12, case 11): a single-process trace whose pipeline stages run on
// threads (PiPPy's visualiser, a threaded CPU pipeline) imports as one rank with overlapping ops.
// Split by track instead: each track holding recognised compute (a host thread, or a GPU stream
// for labels projected onto the GPU) becomes a rank, ordered by thread id (RawRankTrace::
// threadIds, else the track number). Events of tracks without compute and the memory samples
// stay with rank 0; a CPU label that also has a GPU projection is dropped here, as OpBuilder
// would drop it.

#include <string>
#include <vector>

#include "trace/import/OpRecognizer.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

struct ThreadSplit {
  std::vector<RawRankTrace> traces;  // rank = index; just the input when nothing was split
  std::vector<std::string> origins;  // per trace, e.g. "thread 12" (for RankSource::how)
  std::string note;                  // one line for the import summary
};

ThreadSplit splitThreadsAsRanks(RawRankTrace trace, const OpRecognizer& recognizer);

// How many tracks of `trace` hold recognised compute: over one, the import without threads as
// ranks offers them (its one rank's compute ops overlap).
std::size_t computeTrackCount(const RawRankTrace& trace, const OpRecognizer& recognizer);

}  // namespace ps::trace::import
