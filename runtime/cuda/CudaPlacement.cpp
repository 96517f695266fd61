// Where the cuda backend puts ranks, as the run's rank rows and config describe it.
#include <map>

#include "runtime/cuda/CudaBackend.h"
#include "runtime/cuda/CudaSmSplit.h"
#include "runtime/cuda/DeviceFit.h"
#include "runtime/cuda/SmShareSize.h"

namespace ps::runtime {

std::vector<CudaDeviceInfo> cudaRankDevices(int ranks) {
  const CudaAvailability avail = cudaAvailability();
  if (!avail.available()) return {};
  std::vector<CudaDeviceInfo> out;
  for (int d : placeRanksOnDevices(ranks, static_cast<int>(avail.devices.size())))
    out.push_back(avail.devices[d]);
  return out;
}

CudaPlacementNote describeCudaPlacement(int ranks, bool smSplit) {
  const CudaAvailability avail = cudaAvailability();
  if (!avail.available()) return {};
  CudaPlacementNote note;
  const int devices = static_cast<int>(avail.devices.size());
  note.transport = ranks < 2                      ? "none: one rank"
                   : ranksUseNccl(ranks, devices) ? "nccl"
                                                  : "peer-copy";
  if (!smSplit) return note;
  std::map<int, int> perDevice;  // device index → ranks on it
  for (int d : placeRanksOnDevices(ranks, devices))
    ++perDevice[avail.devices[d].index];
  for (const auto& [device, count] : perDevice) {
    if (count < 2) continue;
    // Made and released at once: the run makes its own the same way.
    auto shares = splitSms(device, count);
    if (!shares) {
      note.smSplit = "shared SMs: " + shares.error();
      return note;
    }
    const int each = shares->empty() ? 0 : shares->front().smCount;
    const int granule = shares->empty() ? 0 : shares->front().granule;
    releaseSmShares(*shares);
    if (!note.smSplit.empty()) note.smSplit += "; ";
    note.smSplit += describeSmShares(count, each, granule,
                                     avail.devices[device < devices ? device : 0].smCount, device);
  }
  if (note.smSplit.empty()) note.smSplit = "not needed: every rank has its own GPU";
  return note;
}

}  // namespace ps::runtime
