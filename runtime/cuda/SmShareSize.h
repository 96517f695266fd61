#pragma once
// How many SMs each rank's green context gets under `--sm-split` (runtime/cuda/CudaSmSplit.cpp):
// plain arithmetic on what the driver reports, kept apart so it is tested without a GPU.

#include <string>

namespace ps::runtime {

// The multiple every share's SM count must be: the larger of the driver's minimum partition size
// (minSmPartitionSize) and its co-scheduling alignment (smCoscheduledAlignment). A driver that
// reports 0 for both falls back to cuda.h's guideline for the architecture: 8 on compute
// capability 9.0+ (Hopper: one GPC slice), 4 on 8.x, 2 before.
unsigned smShareGranule(unsigned coscheduledAlignment, unsigned minPartitionSize, int computeMajor);

// SMs per share when `totalSms` are split `parts` equal ways in multiples of `granule`; 0 when
// not even one granule each fits (or parts < 1).
unsigned smsPerShare(unsigned totalSms, int parts, unsigned granule);

// The run config's words for one GPU's split: "green contexts on GPU 0: 4 ranks x 32 of its 132
// SMs (shares in multiples of 8)".
std::string describeSmShares(int ranks, int smsEach, int granule, int totalSms, int device);

}  // namespace ps::runtime
