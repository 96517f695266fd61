#pragma once
// The cuda backend over MPI processes (`mpirun -np P pipescope-cli run --backend cuda --procs`):
// each process runs one rank on GPU (node-local rank mod visible devices), tensors move by NCCL
// (CudaNcclTransport, its unique ids made by rank 0 and broadcast over MPI), records and control
// stay on MPI as for the cpu backend. In a build without CUDA, open() says so.

#include <memory>

#include "runtime/mpi/MpiExecutor.h"

namespace ps::runtime::mpi {

// The ProcessDevice for runOnMpiProcesses; owns the device, clock and NCCL transport until it is
// destroyed (after runOnMpiProcesses returns).
class CudaProcessDevice {
 public:
  explicit CudaProcessDevice(const CpuRunOptions& options);
  ~CudaProcessDevice();
  CudaProcessDevice(const CudaProcessDevice&) = delete;
  CudaProcessDevice& operator=(const CudaProcessDevice&) = delete;

  const ProcessDevice& device() const { return device_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  ProcessDevice device_;
};

}  // namespace ps::runtime::mpi
