// runOnCuda: the cuda backend (DESIGN §3). Every rank is a thread with its own CudaDevice (a
// compute stream and a cuBLAS handle on its GPU), a transfer stream and an event clock; the ranks
// run their programs through the same RankWorker as the cpu backend (runRankThreads), so
// schedules, weight versions, failure and cancel behave the same, and tensors move through
// CudaTransport.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <memory>

#include "kernels/cuda/CudaDevice.h"
#include "kernels/cuda/CudaLibraries.h"
#include "runtime/cuda/CommOrder.h"
#include "runtime/cuda/CudaBackend.h"
#include "runtime/cuda/CudaCheck.h"
#include "runtime/cuda/CudaEventClock.h"
#include "runtime/cuda/CudaNcclApi.h"
#include "runtime/cuda/CudaNcclTransport.h"
#include "runtime/cuda/CudaSmSplit.h"
#include "runtime/cuda/CudaTransport.h"
#include "runtime/cuda/DeviceFit.h"
#include "runtime/exec/RankWorker.h"

namespace ps::runtime {
namespace {

// What the run holds on the devices, destroyed in reverse order after the ranks are done.
struct CudaResources {
  std::map<int, std::vector<SmShare>> smShares;               // --sm-split: per GPU
  std::vector<std::unique_ptr<kernels::CudaDevice>> devices;  // per rank
  std::vector<cudaStream_t> transferStreams;                  // per rank
  std::vector<std::unique_ptr<CudaEventClock>> clocks;        // per rank

  ~CudaResources() {
    for (std::size_t r = 0; r < transferStreams.size(); ++r) {
      if (!transferStreams[r]) continue;
      cudaSetDevice(devices[r]->deviceIndex());
      cudaStreamSynchronize(transferStreams[r]);
      cudaStreamDestroy(transferStreams[r]);
    }
    clocks.clear();
    devices.clear();  // before the green contexts whose streams they run on
    for (auto& [device, shares] : smShares)
      releaseSmShares(shares);
  }
};

// --sm-split: a share of the SMs per rank on every GPU that several ranks share. Best effort:
// a driver without green contexts leaves the SMs shared (describeCudaPlacement says so in the
// run's config).
void splitSharedGpus(const std::vector<int>& deviceOfRank, CudaResources& res) {
  std::map<int, int> count;
  for (int d : deviceOfRank)
    ++count[d];
  for (const auto& [device, ranks] : count)
    if (ranks > 1)
      if (auto shares = splitSms(device, ranks)) res.smShares[device] = std::move(*shares);
}

void enablePeerAccess(const std::vector<int>& used) {
  for (int a : used)
    for (int b : used) {
      if (a == b) continue;
      int can = 0;
      if (cudaDeviceCanAccessPeer(&can, a, b) == cudaSuccess && can) {
        cudaSetDevice(a);
        cudaDeviceEnablePeerAccess(b, 0);  // "already enabled" is fine
      }
      cudaGetLastError();
    }
}

}  // namespace

namespace {

std::vector<DeviceMemory> freeMemory(const CudaAvailability& avail, const std::vector<int>& used) {
  std::vector<DeviceMemory> out;
  for (const CudaDeviceInfo& d : avail.devices) {
    if (std::find(used.begin(), used.end(), d.index) == used.end()) continue;
    std::size_t freeBytes = 0, total = 0;
    cudaSetDevice(d.index);
    if (cudaMemGetInfo(&freeBytes, &total) != cudaSuccess) {
      cudaGetLastError();
      freeBytes = static_cast<std::size_t>(d.memoryBytes);
    }
    out.push_back({d.index, d.name, static_cast<std::int64_t>(freeBytes)});
  }
  return out;
}

// cuBLAS (and NCCL) are opened on first use (kernels/cuda/CudaLibraries.h): open them here, so
// that a missing one is a setup error before anything is written, not a failed run.
Status openCudaLibraries(bool withNccl) {
  try {
    kernels::cuda::cublas();
    if (withNccl) nccl();
  } catch (const kernels::DeviceError& e) {
    return Error{e.what()};
  }
  return {};
}

}  // namespace

Result<CudaPlanCheck> checkCudaPlan(const Plan& plan, const CpuRunOptions& options) {
  const CudaAvailability avail = cudaAvailability();
  if (!avail.available()) return Error{avail.reason};
  PS_TRY(openCudaLibraries(false));
  CudaPlanCheck out;
  for (int d : placeRanksOnDevices(plan.numRanks, static_cast<int>(avail.devices.size())))
    out.deviceOfRank.push_back(avail.devices[d].index);
  out.devicesUsed = out.deviceOfRank;
  std::sort(out.devicesUsed.begin(), out.devicesUsed.end());
  out.devicesUsed.erase(std::unique(out.devicesUsed.begin(), out.devicesUsed.end()),
                        out.devicesUsed.end());
  const std::string shortfall =
      memoryShortfall(out.deviceOfRank, estimateRankBytes(plan, options.model, options.optimizer),
                      freeMemory(avail, out.devicesUsed));
  if (!shortfall.empty()) return Error{"the plan does not fit: " + shortfall};
  // One GPU per rank: NCCL channels in the planned order; ranks sharing GPUs (or one rank
  // alone): peer copies.
  out.nccl = ranksUseNccl(plan.numRanks, static_cast<int>(avail.devices.size()));
  if (out.nccl) {
    PS_TRY(openCudaLibraries(true));
    auto order = planCommOrder(plan);
    if (!order) return std::move(order).takeError();
    PS_TRY(checkCommOrder(plan, *order));
    out.order = std::move(*order);
  }
  return out;
}

Result<CpuRunResult> runOnCuda(const Plan& plan, const OpGraph& graph, const CpuRunOptions& options,
                               trace::TraceWriter* writer) {
  (void)graph;  // validated: in-order execution cannot deadlock
  auto checked = checkCudaPlan(plan, options);
  if (!checked) return std::move(checked).takeError();
  const std::vector<int>& deviceOfRank = checked->deviceOfRank;
  const bool nccl = checked->nccl;
  enablePeerAccess(checked->devicesUsed);

  CudaResources res;
  if (options.smSplit) splitSharedGpus(deviceOfRank, res);
  std::map<int, int> nextShare;  // GPU → shares handed out
  std::vector<CudaRank> ranks;
  try {
    for (int r = 0; r < plan.numRanks; ++r) {
      const int device = deviceOfRank[r];
      SmShare share;  // a green context and its stream, or none: the device makes a stream
      if (auto it = res.smShares.find(device); it != res.smShares.end())
        share = it->second[nextShare[device]++];
      res.devices.push_back(std::make_unique<kernels::CudaDevice>(device, options.dtype,
                                                                  share.stream, share.context));
      cudaStream_t transfer = nullptr;  // NCCL brings its own channel streams
      if (!nccl) {
        res.devices.back()->makeCurrent();  // in its green context, with --sm-split
        cudaCheck(cudaStreamCreateWithFlags(&transfer, cudaStreamNonBlocking), "cudaStreamCreate");
      }
      res.transferStreams.push_back(transfer);
    }
  } catch (const kernels::DeviceError& e) {
    return Error{std::string("setting up the GPUs: ") + e.what()};
  }

  ExecShared s;
  s.plan = &plan;
  s.options = &options;
  // Waits for the GPU poll the abort flag: a rank whose GPU waits on a failed peer stops too.
  const auto aborting = [&s] { return s.abort.load(); };
  for (auto& d : res.devices) {
    d->setWaitPoll(aborting);
    s.devices.push_back(d.get());
  }
  s.clocks.assign(plan.numRanks, nullptr);
  // The clocks are pinned to the run's start, so they are made once runRankThreads set it; the
  // transport needs them, so it is made then too.
  std::unique_ptr<Transport> transport;
  const auto start = [&]() -> Status {
    try {
      for (int r = 0; r < plan.numRanks; ++r) {
        CudaEventClock* clock = nullptr;
        if (options.eventTiming) {
          res.clocks.push_back(std::make_unique<CudaEventClock>(*res.devices[r], s.t0));
          clock = res.clocks.back().get();
          clock->setWaitPoll(aborting);
          s.clocks[r] = clock;
        }
        ranks.push_back({res.devices[r].get(), res.transferStreams[r], clock});
      }
      if (nccl) {
        auto made = CudaNcclTransport::create(s, ranks, std::move(checked->order),
                                              options.model.activationElems());
        if (!made) return std::move(made).takeError();
        transport = std::move(*made);
      } else {
        transport = std::make_unique<CudaTransport>(s, ranks);
      }
      // What remains to upload once the run goes is a micro-batch's inputs and targets (and
      // predicted weights, in pieces): the staging ring is pinned now, never while NCCL waits.
      const auto batchBytes =
          static_cast<std::size_t>(options.model.activationElems()) * sizeof(float);
      for (auto& d : res.devices) {
        d->fixStaging(batchBytes);
        d->setLiveChannels(nccl);
      }
      // Setup made every rank's context current here in turn; a green one may be current on
      // one thread at a time, and its rank's thread is about to start (issue 32 §2).
      res.devices.front()->usePrimaryContext();
    } catch (const kernels::DeviceError& e) {
      return Error{std::string("setting up the GPUs: ") + e.what()};
    }
    s.transport = transport.get();
    return {};
  };
  auto result = runRankThreads(s, writer, start);
  transport.reset();
  return result;
}

}  // namespace ps::runtime
