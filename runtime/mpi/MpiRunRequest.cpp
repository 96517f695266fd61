#include "runtime/mpi/MpiRunRequest.h"

#include <string>

#include "runtime/mpi/MpiCuda.h"
#include "runtime/mpi/MpiExecutor.h"
#include "runtime/mpi/MpiSession.h"
#include "runtime/run/Backends.h"

namespace ps::runtime::mpi {

Status checkMpiWorld(int worldSize, const Plan& plan) {
  if (worldSize != plan.numRanks)
    return Error{"--procs: MPI world size " + std::to_string(worldSize) +
                 " differs from the plan's " + std::to_string(plan.numRanks) +
                 " ranks (launch with mpirun -np " + std::to_string(plan.numRanks) + ")"};
  if (plan.numReplicas() > 2)
    return Error{"--dp " + std::to_string(plan.numReplicas()) +
                 ": MPI processes all-reduce between two replicas (give --dp 2, or run threads "
                 "without --procs)"};
  return {};
}

void useMpiProcesses(RunPlanRequest& request) {
  const bool gpuPerProcess = backendInfo(request.backend).gpuPerProcess;
  request.executor.run = [gpuPerProcess](const Plan& plan, const OpGraph& graph,
                                         const CpuRunOptions& exec, trace::TraceWriter* writer,
                                         const trace::RunHeader& header) {
    if (!gpuPerProcess) return runOnMpiProcesses(plan, graph, exec, writer, header.ranks);
    // One GPU per process, tensors over NCCL; records and control stay on MPI.
    const CudaProcessDevice device(exec);
    return runOnMpiProcesses(plan, graph, exec, writer, header.ranks, &device.device());
  };
  request.executor.agree = [](const Status& mine) { return agreeAcrossRanks(mine); };
}

}  // namespace ps::runtime::mpi
