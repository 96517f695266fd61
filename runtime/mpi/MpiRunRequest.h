#pragma once
// `run --procs` (under `mpirun -np P`): a run request whose ranks are MPI processes. What the
// CLI asked of MPI by hand before (issue 33 §2): whether the world fits the plan, and which
// executor runs this process's rank — the backend's row says whether a process opens a GPU of
// its own (Backends.h `gpuPerProcess`), so no front end names a backend here.

#include "runtime/run/RunPlan.h"
#include "trace/Result.h"

namespace ps::runtime::mpi {

// One process per rank and two replicas at most, checked before any file is touched (the
// transport says so too, at the first optimizer step). Errors name the flag.
Status checkMpiWorld(int worldSize, const Plan& plan);

// Makes `request` run this process's rank over MPI: records and control go to rank 0, which
// writes; a backend whose row has gpuPerProcess opens its GPU here (node-local rank mod visible
// devices) and moves tensors over NCCL. Every process learns whether rank 0 could begin the run.
void useMpiProcesses(RunPlanRequest& request);

}  // namespace ps::runtime::mpi
