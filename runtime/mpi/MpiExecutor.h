#pragma once
// The cpu backend with one MPI process per rank (`mpirun -np P pipescope-cli run ... --procs`):
// MPI rank r runs pipeline rank r's program with the same RankWorker as the threaded backend,
// over an MpiTransport (DESIGN §3).
//
// Records: one run in one file, gathered to rank 0. Rank 0 owns the TraceWriter; after each step
// every other rank sends it that step's ops and memory samples (already moved onto rank 0's
// clock) and losses, serialized, non-blocking; rank 0 merges them and a writer thread of its own
// (no MPI calls) writes each step once all ranks handed it over, one transaction per step, so
// the file never sits on a rank's hot path.
//
// Clocks: after a barrier each process starts its steady clock at zero, then estimates its
// offset onto rank 0's clock by ping-pong; every timestamp is stored on rank 0's axis and each
// rank row's clock_offset_ns holds the correction that was added.

#include <vector>

#include "runtime/exec/CpuExecutor.h"
#include "trace/TraceRecords.h"

namespace ps::trace {
class TraceWriter;
}

namespace ps::runtime::mpi {

// Runs this process's rank of `plan`; MPI must be initialised (MpiSession) with a world of
// exactly plan.numRanks processes. A collective: every process calls it.
// On rank 0: `writer` (null = no recording) receives every step; `rankRows` (the header's rank
// rows) are completed with each process's host and clock offset and written with upsertRank
// before the first step. options.onStepWritten is called on rank 0's writer thread.
// The result's stepLoss and stepsWritten are rank 0's; status and message say how the run ended
// as far as this process knows (rank 0 always knows).
Result<CpuRunResult> runOnMpiProcesses(const Plan& plan, const OpGraph& graph,
                                       const CpuRunOptions& options, trace::TraceWriter* writer,
                                       std::vector<trace::RankInfo> rankRows);

}  // namespace ps::runtime::mpi
