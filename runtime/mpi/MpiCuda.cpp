#include "runtime/mpi/MpiCuda.h"

#include <mpi.h>

#include "kernels/cuda/CudaDevice.h"
#include "runtime/cuda/CommOrder.h"
#include "runtime/cuda/CudaBackend.h"
#include "runtime/cuda/CudaEventClock.h"
#include "runtime/cuda/CudaNcclApi.h"
#include "runtime/cuda/CudaNcclTransport.h"
#include "runtime/cuda/DeviceFit.h"
#include "runtime/exec/RankWorker.h"
#include "runtime/mpi/MpiSession.h"
#include "runtime/mpi/MpiTransport.h"

namespace ps::runtime::mpi {

struct CudaProcessDevice::State {
  const CpuRunOptions* options = nullptr;
  std::unique_ptr<kernels::CudaDevice> device;
  std::unique_ptr<CudaEventClock> clock;
  std::unique_ptr<CudaNcclTransport> transport;
};

namespace {

// This process's rank among the processes of its node, and how many there are (a collective).
std::pair<int, int> nodeLocalRank() {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0, size = 1;
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  return {local, size};
}

}  // namespace

CudaProcessDevice::CudaProcessDevice(const CpuRunOptions& options)
    : state_(std::make_unique<State>()) {
  state_->options = &options;
  State* st = state_.get();
  device_.open = [st](ExecShared& s, int rank) -> Status {
    // The collective first, on every process, whatever happens next (the caller agrees on the
    // outcome across processes afterwards).
    const auto [local, onNode] = nodeLocalRank();
    const CudaAvailability avail = cudaAvailability();
    if (!avail.available()) return Error{"rank " + std::to_string(rank) + ": " + avail.reason};
    // NCCL cannot hold two ranks of a communicator on one GPU ("Duplicate GPU detected").
    if (onNode > static_cast<int>(avail.devices.size()))
      return Error{
          "--procs on the cuda backend needs one GPU per process: " + std::to_string(onNode) +
          " processes on this node, " + std::to_string(avail.devices.size()) +
          " GPUs (run without --procs: ranks then share the GPUs in one process)"};
    const CudaDeviceInfo& info = avail.devices[local];
    // This rank's memory against this device's free memory (ranks of other processes on the
    // same GPU check their own share).
    const auto bytes = estimateRankBytes(*s.plan, st->options->model, st->options->optimizer);
    std::size_t freeBytes = 0, total = 0;
    cudaSetDevice(info.index);
    if (cudaMemGetInfo(&freeBytes, &total) != cudaSuccess) {
      cudaGetLastError();
      freeBytes = static_cast<std::size_t>(info.memoryBytes);
    }
    std::vector<int> placement(s.plan->numRanks, -1);
    placement[rank] = info.index;
    const std::string shortfall = memoryShortfall(
        placement, bytes, {{info.index, info.name, static_cast<std::int64_t>(freeBytes)}});
    if (!shortfall.empty()) return Error{"the plan does not fit: " + shortfall};
    try {
      st->device = std::make_unique<kernels::CudaDevice>(info.index, st->options->dtype);
    } catch (const kernels::DeviceError& e) {
      return Error{"rank " + std::to_string(rank) + ": " + e.what()};
    }
    s.devices.assign(s.plan->numRanks, nullptr);
    s.devices[rank] = st->device.get();
    return {};
  };
  device_.start = [st](ExecShared& s, int rank, MpiTransport& mpi) -> Result<Transport*> {
    const auto aborting = [&mpi] { return mpi.poll(); };
    st->device->setWaitPoll(aborting);
    CudaEventClock* clock = nullptr;
    Status local;
    try {
      if (st->options->eventTiming) {
        st->clock = std::make_unique<CudaEventClock>(*st->device, s.t0);
        st->clock->setWaitPoll(aborting);
        clock = st->clock.get();
        s.clocks.assign(s.plan->numRanks, nullptr);
        s.clocks[rank] = clock;
      }
      nccl();  // throws while libnccl cannot be opened: every process then says so
    } catch (const kernels::DeviceError& e) {
      local = Error{"rank " + std::to_string(rank) + ": " + e.what()};
    }
    // The same plan everywhere, so the same answer everywhere: no collective is skipped.
    auto order = planCommOrder(*s.plan);
    if (!order) return std::move(order).takeError();
    PS_TRY(checkCommOrder(*s.plan, *order));
    // Every process must reach NCCL's initialisation, or none: a process that failed alone
    // would leave the others waiting in it.
    PS_TRY(agreeAcrossRanks(local));
    const auto shareIds = [rank](int count) {
      std::vector<ncclUniqueId> ids(count);
      if (rank == 0)
        for (ncclUniqueId& id : ids)
          nccl().getUniqueId(&id);
      MPI_Bcast(ids.data(), static_cast<int>(ids.size() * sizeof(ncclUniqueId)), MPI_BYTE, 0,
                MPI_COMM_WORLD);
      return ids;
    };
    CudaRank mine{st->device.get(), nullptr, clock};
    auto made =
        CudaNcclTransport::createForProcess(s, rank, s.plan->numRanks, mine, std::move(*order),
                                            st->options->model.activationElems(), shareIds);
    if (!made) return std::move(made).takeError();
    st->transport = std::move(*made);
    return static_cast<Transport*>(st->transport.get());
  };
}

CudaProcessDevice::~CudaProcessDevice() = default;

}  // namespace ps::runtime::mpi
