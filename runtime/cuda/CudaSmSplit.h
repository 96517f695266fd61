#pragma once
// `--sm-split`: ranks that share one GPU each get their own share of its SMs through green
// contexts (CUDA 12.5+ driver API: cuGreenCtxStreamCreate), so one big GPU behaves like several
// smaller ones instead of letting every rank's kernels spread over all SMs. Where the driver
// cannot, the run goes on with shared SMs and its config says why.

#include <cuda.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "trace/Result.h"

namespace ps::runtime {

struct SmShare {
  CUgreenCtx context = nullptr;
  cudaStream_t stream = nullptr;  // a stream of the green context, usable with the runtime API
  int smCount = 0;
  int granule = 0;  // shares are multiples of this many SMs (SmShareSize.h)
};

// `parts` equal shares of `device`'s SMs (as many as the SM partition granularity allows:
// smShareGranule), one green context and stream each. Errors name what the driver refused.
[[nodiscard]] Result<std::vector<SmShare>> splitSms(int device, int parts);
void releaseSmShares(std::vector<SmShare>& shares);

}  // namespace ps::runtime
