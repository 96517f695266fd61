#pragma once
// Calibration on the cpu backend (DESIGN §2: a cost model "from calibration (timing the real
// layers on the chosen backend)"). Every layer of the model is built as a one-layer stage and its
// F, I and W passes are timed on the calling thread with one BLAS thread, exactly as a rank calls
// them (the first layer makes its own input, the last computes the loss); the median of several
// repeats becomes the layer's cost. Sizes come from the model's own counted allocations, so the
// simulator predicts memory with the real bytes.
//
// What the resulting CostModel holds per layer: fwdNs, inputGradNs, weightGradNs (medians),
// paramBytes (the layer's weights) and actBytes (bytes one micro-batch holds on the layer from F
// on: its activation stash, plus the loss gradient on the last layer). Model-wide:
// stateBytesPerParamByte ((weights + gradients + optimizer state) / weights) and
// optimizerNsPerParamByte (median optimizer step time per weight byte). Ranks and links are left
// empty (speed 1, no cap, free links): the caller adds what it emulates.
//
// Note: the simulator also takes a stage's last-layer actBytes as the bytes sent to the next stage;
// a calibrated model keeps actBytes the memory figure (the stash, several times the B·S·H·4
// bytes the cpu backend really sends), so with finite link bandwidth simulated transfers last
// longer than emulated ones.

#include <functional>
#include <string>

#include "runtime/cost/CostModel.h"
#include "runtime/exec/KernelTypes.h"
#include "runtime/model/ModelConfig.h"
#include "runtime/model/Optimizer.h"
#include "trace/Result.h"

namespace ps::runtime {

struct CalibrationOptions {
  int repeats = 7;  // timed passes per layer; the median is kept
  int warmup = 2;   // untimed passes before them
  // Threads timing the same layers at the same time, each on its own copy; their samples are
  // pooled. 1 times a layer alone; the run's rank count (up to the cores) includes the slowdown
  // ranks cause each other when they compute at once (shared caches, memory bandwidth, SMT).
  int threads = 1;
  // Where the layers run: null = the host, each pass timed by the host clock. With a device (the
  // cuda backend's calibration, runtime/cuda), `timePass` times one pass on it (CUDA events
  // around it) and `threads` must be 1.
  kernels::ComputeDevice* device = nullptr;
  std::function<Result<double>(const std::function<Status()>& pass)> timePass;
};

// Sizes only, no timing (cheap): paramBytes, actBytes and stateBytesPerParamByte as above, times 0.
// Errors: an invalid model or optimizer config.
[[nodiscard]] Result<CostModel> cpuModelSizes(const ModelConfig& model,
                                              const OptimizerConfig& optimizer);

// Sizes plus the medians of `options.repeats` timed F, I, W passes per layer (model.layers layers)
// and of as many optimizer steps, per thread. Runs on the calling thread (plus threads − 1
// helpers); sets OpenBLAS to one thread per caller.
[[nodiscard]] Result<CostModel> calibrateCpuCosts(const ModelConfig& model,
                                                  const OptimizerConfig& optimizer,
                                                  const CalibrationOptions& options = {});

// "calibrated on cpu: mlp L=4 H=64 S=16 B=4, adam, <UTC time>": the cost file's `source`
// (`where`: "cpu", or the GPU's name for the cuda backend).
std::string calibrationSource(const ModelConfig& model, const OptimizerConfig& optimizer,
                              const std::string& where = "cpu");

}  // namespace ps::runtime
