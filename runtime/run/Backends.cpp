// The backends' rows (Backends.h). Each row says what the backend is and what it can do; the
// run path (RunPlan.cpp), the refusals (BackendRefusals.cpp, ModelRun.cpp) and the front ends
// read only these rows.

#include "runtime/run/Backends.h"

#include <cstdio>

#include <algorithm>
#include <thread>
#include "kernels/cpu/Gemm.h"
#include "kernels/cpu/VectorMath.h"

#include "runtime/exec/Calibrate.h"
#include "runtime/exec/ComputeStretch.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/run/SharedGpuPrediction.h"

namespace ps::runtime {
namespace {

// ---- sim: the simulator, from the plan's per-layer costs ----

BackendInfo simRow() {
  BackendInfo row{{}, "sim", "the simulator, from the per-layer costs (instant)."};
  return row;
}

// ---- cpu: the layered model trained on rank threads ----

BackendDescription describeCpu() {
  BackendDescription d;
  d.blas = kernels::blasCoreName();
  d.simd = kernels::simdLevel();
  d.warning = kernels::blasCoreWarning();
  return d;
}

std::string cpuDetails() {
  const BackendDescription cpu = describeCpu();
  return "Rank threads training the model: " + cpu.summary() +
         (cpu.warning.empty() ? std::string() : "\n" + cpu.warning);
}

// As many threads as ranks compute at once (up to the cores): the timings then include the
// slowdown ranks cause each other, as in the run.
int calibrationThreads(int ranks) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::clamp(ranks, 1, cores);
}

BackendInfo cpuRow() {
  BackendInfo row{{}, "cpu", "real training of the model on CPU threads, one per rank."};
  row.trainsModel = true;
  row.computesOnHostCores = true;
  row.describe = describeCpu;
  row.details = cpuDetails;
  row.execute = runOnCpuThreads;
  // --rank-speed: a slow rank's compute is stretched (only threads on one CPU can).
  row.prepare = [](const BuiltPlan& built, CpuRunOptions& options) {
    options.computeStretch = computeStretchOf(built.cost, built.plan.numRanks);
  };
  row.calibrationPlace = [](int ranks, const CpuRunOptions&) {
    const int threads = calibrationThreads(ranks);
    return BackendCalibrationPlace{
        "cpu", std::to_string(threads) + (threads == 1 ? " thread" : " threads")};
  };
  row.calibrate = [](const ModelConfig& model, const CpuRunOptions& options, int ranks) {
    CalibrationOptions calibration;
    calibration.threads = calibrationThreads(ranks);
    return calibrateCpuCosts(model, options.optimizer, calibration);
  };
  row.configJsonTail = [](trace::JsonWriter& w) {  // what its numbers were computed with
    w.key("cpu_kernels").beginObject();
    w.key("blas").value(kernels::blasCoreName());
    w.key("simd").value(kernels::simdLevel());
    w.endObject();
  };
  return row;
}

// ---- cuda: the layered model trained on the GPUs ----

BackendAvailability cudaAvailable() {
  const CudaAvailability cuda = cudaAvailability();
  if (cuda.available()) return {};
  // "no CUDA device (<why>)", whatever the availability query's wording.
  const std::string prefix = "no CUDA device";
  return {false, cuda.reason,
          cuda.reason.rfind(prefix, 0) == 0 ? cuda.reason : prefix + " (" + cuda.reason + ")"};
}

// "0: NVIDIA H200 (139.8 GiB, 132 SMs)", one line per device.
std::string cudaDetails() {
  std::string lines;
  for (const CudaDeviceInfo& d : cudaAvailability().devices) {
    char size[32];
    std::snprintf(size, sizeof size, "%.1f",
                  static_cast<double>(d.memoryBytes) / (1024.0 * 1024.0 * 1024.0));
    if (!lines.empty()) lines += '\n';
    lines += std::to_string(d.index) + ": " + d.name + " (" + size + " GiB, " +
             std::to_string(d.smCount) + " SMs)";
  }
  return lines;
}

// Its rank rows: the device each rank runs on and, where the plan sets no cap, its memory as
// the rank's capacity.
void describeCudaRanks(trace::RunHeader& header) {
  const auto devices = cudaRankDevices(static_cast<int>(header.ranks.size()));
  for (std::size_t r = 0; r < header.ranks.size() && r < devices.size(); ++r) {
    header.ranks[r].device = devices[r].name;
    if (!header.ranks[r].memory_capacity_bytes)
      header.ranks[r].memory_capacity_bytes = devices[r].memoryBytes;
  }
}

BackendInfo cudaRow() {
  BackendInfo row{{}, "cuda", "real training on the GPUs."};
  row.trainsModel = true;
  row.gpuPerProcess = true;
  // Ranks on devices, micro-batches of one shape, bf16 and SM shares.
  row.limits = {
      .sharedMemoryRanks = false, .shapedMicrobatches = false, .bf16 = true, .smSplit = true};
  // Chimera's twins and --dp 2 exchange gradients pairwise on the GPUs; more replicas only
  // between threads.
  row.refusePlan = [](const Plan& plan, bool) -> Status {
    if (plan.numReplicas() > 2)
      return Error{"--dp " + std::to_string(plan.numReplicas()) +
                   ": the cuda backend all-reduces between two replicas (give --dp 2, or run "
                   "--backend cpu)"};
    return {};
  };
  row.availability = cudaAvailable;
  row.describe = [] {
    BackendDescription d;
    d.blas = "cuBLAS";
    return d;
  };
  row.details = cudaDetails;
  row.execute = runOnCuda;
  // The GPUs' memory and a deadlock-free channel order, before the file is opened.
  row.checkBeforeOpen = [](const Plan& plan, const CpuRunOptions& options) -> Status {
    if (options.model.block == BlockType::Moe || options.model.block == BlockType::Gnn)
      return Error{"--model " + std::string(blockTypeName(options.model.block)) +
                   ": the cuda backend has no routing or neighbour kernels (the block reads its "
                   "tokens' experts or neighbours on the host); run --backend cpu"};
    if (auto fits = checkCudaPlan(plan, options); !fits) return Error{fits.error()};
    return {};
  };
  row.placementNote = [](int ranks, bool smSplit) -> std::optional<CudaPlacementNote> {
    return describeCudaPlacement(ranks, smSplit);
  };
  row.describeRanks = describeCudaRanks;
  row.calibrationPlace = [](int, const CpuRunOptions& options) {
    const CudaAvailability cuda = cudaAvailability();
    const std::string where = cuda.available() ? cuda.devices.front().name : "cpu";
    return BackendCalibrationPlace{where, where + ", " + std::string(nameOfDtype(options.dtype))};
  };
  // With --sm-split each rank sharing a GPU gets a share of its SMs: calibrate on one.
  row.calibrate = [](const ModelConfig& model, const CpuRunOptions& options, int ranks) {
    const CudaAvailability cuda = cudaAvailability();
    const int gpus = cuda.available() ? static_cast<int>(cuda.devices.size()) : 0;
    const int shareOf = calibrationShareOf(ranks, gpus, options.smSplit);
    return calibrateCudaCosts(model, options.optimizer, {}, options.dtype, shareOf);
  };
  row.predictionNote = [](int ranks, bool smSplit) -> std::string {
    const CudaAvailability cuda = cudaAvailability();
    if (!cuda.available()) return {};
    return sharedGpuPredictionNote(ranks, static_cast<int>(cuda.devices.size()), smSplit);
  };
  return row;
}

}  // namespace

const std::vector<BackendInfo>& backends() {
  static const std::vector<BackendInfo> rows = [] {
    std::vector<BackendInfo> r{simRow(), cpuRow(), cudaRow()};
    for (std::size_t i = 0; i < r.size(); ++i)  // a row's id is its position (Backend.h)
      r[i].id = static_cast<Backend>(i);
    return r;
  }();
  return rows;
}

const BackendInfo* findBackend(std::string_view name) {
  for (const BackendInfo& row : backends())
    if (row.name == name) return &row;
  return nullptr;
}

const BackendInfo& backendInfo(Backend backend) {
  const auto& rows = backends();
  const auto at = static_cast<std::size_t>(backend);
  return rows[at < rows.size() ? at : 0];
}

}  // namespace ps::runtime
