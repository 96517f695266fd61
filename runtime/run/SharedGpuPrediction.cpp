#include "runtime/run/SharedGpuPrediction.h"

namespace ps::runtime {
namespace {

bool ranksShareAGpu(int ranks, int devices) {
  return devices > 0 && ranks > devices;
}

std::string countOf(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

int calibrationShareOf(int ranks, int devices, bool smSplit) {
  if (!smSplit || !ranksShareAGpu(ranks, devices)) return 1;
  return (ranks + devices - 1) / devices;
}

std::string sharedGpuPredictionNote(int ranks, int devices, bool smSplit) {
  if (!ranksShareAGpu(ranks, devices)) return {};
  const std::string sharing =
      countOf(ranks, "rank", "ranks") + " share " + countOf(devices, "GPU", "GPUs");
  if (!smSplit)
    return "the prediction assumes one GPU per rank, calibrated on a whole idle GPU, but the " +
           sharing +
           " (give --sm-split to calibrate and run each rank on its own share of the "
           "SMs)";
  return "--sm-split: " + sharing + "; calibration timed the layers on one SM share of " +
         std::to_string(calibrationShareOf(ranks, devices, smSplit)) +
         " per GPU, as each rank runs";
}

}  // namespace ps::runtime
