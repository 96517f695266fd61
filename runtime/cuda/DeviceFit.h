#pragma once
// Plain C++ planning for the cuda backend, tested on the CPU: which GPU each rank runs on, and
// whether the plan's memory fits those GPUs before anything is launched.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/model/ModelConfig.h"
#include "runtime/model/Optimizer.h"
#include "runtime/plan/Plan.h"

namespace ps::runtime {

// Rank r → device position: one GPU per rank when there are at least `ranks` devices, otherwise
// contiguous blocks of ranks share one (rank r on r·devices/ranks), so pipeline neighbours stay
// on one GPU where they can. `devices` ≥ 1.
std::vector<int> placeRanksOnDevices(int ranks, int devices);

// Whether ranks talk over NCCL channels: only when there are at least two and every one has its
// own GPU; ranks sharing GPUs use peer copies, and one rank talks to no one (opening libnccl
// alone would cost ~218 MB and a second of start-up for nothing).
bool ranksUseNccl(int ranks, int devices);

// Bytes each rank holds at its peak: weights, gradients and optimizer state of its stages (plus
// weight versions for PipeDream-style plans), the largest number of micro-batches its program
// has in flight (F done, W or B not yet) times a micro-batch's stash, boundary buffers, and the
// device's fixed costs (the cuBLAS workspace).
std::vector<std::int64_t> estimateRankBytes(const Plan& plan, const ModelConfig& model,
                                            const OptimizerConfig& optimizer);

struct DeviceMemory {
  int index = 0;
  std::string name;
  std::int64_t freeBytes = 0;
};

// "" when every device holds its ranks; else one line naming the first device that does not,
// with the numbers, e.g. "GPU 0 (NVIDIA H200) needs 151.3 GiB for ranks 0,1 but has 139.1 GiB
// free".
std::string memoryShortfall(const std::vector<int>& deviceOfRank,
                            const std::vector<std::int64_t>& rankBytes,
                            const std::vector<DeviceMemory>& devices);

}  // namespace ps::runtime
