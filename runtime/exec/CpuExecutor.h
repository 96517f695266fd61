#pragma once
// The cpu backend (DESIGN §3): real training of the layered model, pipelined by any validated
// plan, with one thread per rank. Activations and gradients move through mailboxes that can
// emulate a link's bandwidth and latency. Every op is timestamped on a steady clock, memory per
// rank comes from the model's counted allocations, and each step's ops, memory and loss are
// written in one transaction by the calling thread, never by a rank.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/exec/KernelTypes.h"
#include "runtime/model/ModelConfig.h"
#include "runtime/model/Optimizer.h"
#include "runtime/model/TokenLayout.h"
#include "runtime/plan/OpGraph.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"
#include "trace/TraceRecords.h"

namespace ps::trace {
class TraceWriter;
}

namespace ps::runtime {

struct CpuRunOptions {
  ModelConfig model;  // `layers` is taken from the plan
  // Micro-batches of their own shapes (--seq-lengths, --token-slices): StageOptions::tokens.
  std::shared_ptr<const TokenLayouts> tokens;
  OptimizerConfig optimizer;
  // LayerPipe2 (--weight-versions ema): β of the moving average of each stage's updates that a
  // backward rebuilds its forward's weights from.
  float weightAverageBeta = 0.9f;
  // I-TiMePReSt (WeightVersioning::Blended): the stash's weight e^(−decay·d) after d updates.
  float stashBlendDecay = 1.0f;
  std::optional<double> linkGbps;  // emulated bandwidth; none = as fast as memory
  double linkLatencyUs = 0;
  // cpu backend, --rank-speed: per rank, how many times its measured compute each compute op
  // lasts (computeStretchOf: the fastest rank's speed over its own); empty = as measured.
  std::vector<double> computeStretch;
  // cuda backend only: GEMM input precision (the cpu backend refuses bf16) and whether ranks
  // sharing one GPU each get their own share of its SMs (green contexts) where the driver can.
  kernels::DType dtype{};  // Fp32 (KernelTypes.h)
  bool smSplit = false;
  // cuda backend only: time ops with CUDA events (the default). Off, ops are stamped with the
  // host clock at issue: meaningless as GPU times, but it measures what recording costs.
  bool eventTiming = true;
  const std::atomic<bool>* cancel = nullptr;    // set it to stop (run ends 'cancelled')
  std::function<void(int step)> onStepWritten;  // progress, called on the calling thread
  // Test hook, called on a rank's thread before each action; it may throw to play a rank that
  // dies mid-run.
  std::function<void(int rank, const Action& action)> beforeAction;
  // Test hook, called on a rank's thread after each F and before each I or B with the weight
  // version the micro-batch computes with (StageModel::versionUsed: the version's number, −1 for
  // the live weights) and the stage's live version (optimizer steps applied so far).
  std::function<void(int rank, const Action& action, int versionUsed, int liveVersion)>
      onWeightVersion;
};

struct CpuRunResult {
  trace::RunStatus status = trace::RunStatus::Complete;
  std::string message;                   // why it failed or was cancelled
  std::vector<double> stepLoss;          // per completed step: mean loss over its micro-batches
  std::vector<float> finalParams;        // replica 0's weights of layers 0..L-1 in layer order
  std::vector<std::int64_t> peakMemory;  // per rank
  int stepsWritten = 0;
};

// Runs `plan` (validated into `graph`). `writer` may be null (no recording). Errors in the
// setup (bad model config) come back as an error; failures while running come back as a
// result with status Failed and the rank's message.
Result<CpuRunResult> runOnCpuThreads(const Plan& plan, const OpGraph& graph,
                                     const CpuRunOptions& options, trace::TraceWriter* writer);

}  // namespace ps::runtime
