#pragma once
// Processes as ranks: a file that holds several ranks on one clock (PipeScope's own Chrome
// export writes one process per rank, pid = rank) is split into one RawRankTrace per rank, as
// if each had been its own profile. The reader marks which tracks belong to which rank
// (RawRankTrace::rankOfTrack) and keeps each rank's memory samples (memoryOfRank); events of
// other tracks stay with the lowest rank. The parts share the file's clock (sharedClock), so
// the import fits no offsets between them.

#include <vector>

#include "trace/import/RawTrace.h"

namespace ps::trace::import {

// The trace itself (one element) when it names no ranks; else one trace per rank, ordered by
// rank, each with rank set, the world size the number of ranks, and only the names its events
// use. Linear in the events.
std::vector<RawRankTrace> splitProcessesAsRanks(RawRankTrace trace);

}  // namespace ps::trace::import
