#pragma once
// The backends' registry (issue 33 §2): one row per backend, read by runPlan (which executor,
// which checks before the file is opened), the feature refusals (BackendRefusals.cpp reads the
// row's limits), the CLI's --backend flag and its help, and the app's Backend list. A new
// backend is a row in Backends.cpp, its executor, its limits (and any refusal of its own) and
// its test; nothing outside the rows asks which backend it is.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cuda/CudaBackend.h"
#include "runtime/exec/CpuExecutor.h"
#include "runtime/run/Backend.h"
#include "runtime/run/BackendDescription.h"
#include "trace/JsonWriter.h"
#include "trace/Result.h"
#include "trace/TraceRecords.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime {

struct BuiltPlan;

// Whether a backend can run in this process, and why not.
struct BackendAvailability {
  bool ok = true;
  std::string reason;   // short, for the app's list: "built without CUDA"; empty when ok
  std::string message;  // runPlan's refusal: "no CUDA device (built without CUDA)"
};

// What a model backend runs of the plan's features and the model's options; the refusals
// (checkPlanFeatures, checkModelOptions) name each feature outside them by its flag.
struct BackendLimits {
  // Rank threads in one address space: BPipe's activation moves, stage DAGs and the frozen
  // encoder's hand-off (false: the ranks are on devices, as if they were processes).
  bool sharedMemoryRanks = true;
  // Micro-batches of their own shapes (--seq-lengths, --token-slices).
  bool shapedMicrobatches = true;
  bool bf16 = false;     // --dtype bf16
  bool smSplit = false;  // --sm-split
};

// Where a backend times the model's layers (BackendInfo::calibrationPlace).
struct BackendCalibrationPlace {
  std::string where;  // "cpu", or the GPU's name
  std::string how;    // "4 threads", "NVIDIA H200, bf16"
};

// The layered model's executor: the same contract as runOnCpuThreads.
using BackendExecutor = Result<CpuRunResult> (*)(const Plan&, const OpGraph&, const CpuRunOptions&,
                                                 trace::TraceWriter*);

struct BackendInfo {
  Backend id{};              // its position in backends(), set by the registry
  std::string_view name;     // --backend, config_json's "backend", run.source
  std::string_view summary;  // one line, for --help and the app's Backend list
  bool trainsModel = false;  // false: the simulator (runPlan simulates instead of executing)
  // Its ranks compute on this machine's cores: more ranks than cores contend, an emulated link
  // waits for real, and its kernels are worth naming on the terminal.
  bool computesOnHostCores = false;
  // `run --procs`: each MPI process opens a GPU of its own and moves tensors over NCCL
  // (runtime/mpi/MpiRunRequest.h); false: tensors go over MPI.
  bool gpuPerProcess = false;
  BackendLimits limits;
  // Refusals of its own beyond the limits (checkPlanFeatures calls it last), named by the
  // feature's flag; `processes`: the ranks run as MPI processes. Null: none.
  Status (*refusePlan)(const Plan& plan, bool processes) = nullptr;
  BackendAvailability (*availability)() = nullptr;  // null: always available
  BackendDescription (*describe)() = nullptr;       // what it computes with; null: nothing
  // What the app shows over its entry when available: the kernels, the devices. Null: summary.
  std::string (*details)() = nullptr;
  // Model backends (trainsModel):
  BackendExecutor execute = nullptr;
  // Fills the options the backend derives from the plan (the cpu one stretches slow ranks).
  void (*prepare)(const BuiltPlan&, CpuRunOptions&) = nullptr;
  // Its own refusals before the file is opened (the GPUs' memory, channel order); skipped when
  // the ranks run as processes (each process checks its own).
  Status (*checkBeforeOpen)(const Plan&, const CpuRunOptions&) = nullptr;
  // config_json's note of where the run goes ("cuda": transport, SM split); null: none.
  std::optional<CudaPlacementNote> (*placementNote)(int ranks, bool smSplit) = nullptr;
  // Completes the run's rank rows (each rank's device and its memory as capacity).
  void (*describeRanks)(trace::RunHeader&) = nullptr;
  // Calibration (--compare-sim, --calibrate-out): what it times the model's layers on
  // (`where`: calibrationSource's "cpu" or the GPU's name; `how`: the terminal's words, "4
  // threads"), then the timing itself. `ranks`: the plan's.
  BackendCalibrationPlace (*calibrationPlace)(int ranks, const CpuRunOptions&) = nullptr;
  Result<CostModel> (*calibrate)(const ModelConfig&, const CpuRunOptions&, int ranks) = nullptr;
  // What a prediction of this run assumes (ranks sharing a GPU); empty: nothing to say.
  std::string (*predictionNote)(int ranks, bool smSplit) = nullptr;
  // Keys it adds at the end of config_json's object (what its numbers were computed with).
  void (*configJsonTail)(trace::JsonWriter&) = nullptr;

  BackendAvailability available() const {
    return availability ? availability() : BackendAvailability{};
  }
};

// Every backend, in the order the front ends list them (its id is its position).
const std::vector<BackendInfo>& backends();
// The row named `name`, or null.
const BackendInfo* findBackend(std::string_view name);
// The row of a backend id.
const BackendInfo& backendInfo(Backend backend);

}  // namespace ps::runtime
