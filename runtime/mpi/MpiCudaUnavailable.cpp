// The cuda backend over MPI in a build without CUDA: it exists and says why it cannot run.
#include "runtime/mpi/MpiCuda.h"

#include "runtime/cuda/CudaBackend.h"

namespace ps::runtime::mpi {

struct CudaProcessDevice::State {};

CudaProcessDevice::CudaProcessDevice(const CpuRunOptions&) : state_(std::make_unique<State>()) {
  device_.open = [](ExecShared&, int rank) -> Status {
    return Error{"rank " + std::to_string(rank) + ": " + cudaAvailability().reason};
  };
}

CudaProcessDevice::~CudaProcessDevice() = default;

}  // namespace ps::runtime::mpi
