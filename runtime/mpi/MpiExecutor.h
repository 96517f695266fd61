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

#include <functional>
#include <vector>

#include "runtime/exec/CpuExecutor.h"
#include "trace/TraceRecords.h"

namespace ps::trace {
class TraceWriter;
}

namespace ps::runtime {
struct ExecShared;
class Transport;  // runtime/exec/Transport.h (it holds kernels types: not for app)
}  // namespace ps::runtime

namespace ps::runtime::mpi {

class MpiTransport;

// This process's device for a model backend other than the cpu (the cuda backend over MPI,
// runtime/mpi/MpiCuda.h). `open` runs before the stages are built and sets the rank's device
// (ExecShared::devices); `start` runs once the run's clock is set (a collective: every process
// calls it at the same point) and returns the data plane the MPI transport hands tensors,
// gradient sums and barriers to; it may also set the rank's clock (ExecShared::clocks).
struct ProcessDevice {
  std::function<Status(ExecShared& shared, int rank)> open;
  std::function<Result<Transport*>(ExecShared& shared, int rank, MpiTransport& mpi)> start;
};

// Runs this process's rank of `plan`; MPI must be initialised (MpiSession) with a world of
// exactly plan.numRanks processes. A collective: every process calls it.
// On rank 0: `writer` (null = no recording) receives every step; `rankRows` (the header's rank
// rows) are completed with each process's host and clock offset and written with upsertRank
// before the first step. options.onStepWritten is called on rank 0's writer thread.
// The result's stepLoss and stepsWritten are rank 0's; status and message say how the run ended
// as far as this process knows (rank 0 always knows).
// `device`: null for the cpu backend.
Result<CpuRunResult> runOnMpiProcesses(const Plan& plan, const OpGraph& graph,
                                       const CpuRunOptions& options, trace::TraceWriter* writer,
                                       std::vector<trace::RankInfo> rankRows,
                                       const ProcessDevice* device = nullptr);

}  // namespace ps::runtime::mpi
