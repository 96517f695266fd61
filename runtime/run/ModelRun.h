#pragma once
// What the model backends (cpu, cuda) need besides the plan: the options they refuse, the cost
// model of the model they train as the simulator sees it (for the memory check and predictions),
// and the config_json that reruns such a run.

#include <string>

#include "runtime/cost/CostModel.h"
#include "runtime/exec/CpuExecutor.h"
#include "runtime/run/Backend.h"
#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"

namespace ps::runtime {

// The model a plan trains: the plan's layers, and with --graph-nodes N a gnn model's graph is
// the simulator's, N nodes in the plan's M chunks (N/M nodes a micro-batch: B = N/M, S = 1).
void fitModelToPlan(const Plan& plan, ModelConfig& model);

// An invalid model or optimizer (the message names the field), or an option the backend cannot
// honour: bf16 on the cpu backend, --sm-split on anything but cuda. `options.model.layers` must
// already be the plan's.
[[nodiscard]] Status checkModelOptions(Backend backend, const CpuRunOptions& options);

// The cost model of the model a cpu or cuda run trains: its own sizes (cpuModelSizes) with the
// plan's times, or its calibrated costs; each rank at speed 1 (1 / options.computeStretch where
// the cpu backend stretches it) with the plan's memory cap; the
// emulated link (options.linkGbps, linkLatencyUs) between every pair of ranks.
[[nodiscard]] Result<CostModel> modelCostModel(const BuiltPlan& built, const CpuRunOptions& options,
                                               const CostModel* calibrated = nullptr);

// How a cuda run places its ranks, for its config (runtime/cuda/CudaBackend.h).
struct CudaPlacementNote;

// config_json of a model run: {"plan": <the plan's knobs>, "backend", "model", "hidden", "seq",
// "mb_size", "heads", "seed", "optimizer", "lr", "dtype", "sm_split"}, plus for a cuda run
// "cuda": {"transport", "sm_split"} saying which transport and SM split were used, then
// "ffn_multiplier", "momentum", "beta1", "beta2", "eps", "emulated_link_gbps" (null: as fast as
// memory), "emulated_link_latency_us", "event_timing", and with --rank-speed on the cpu backend
// "rank_speed_applied" (how) and "compute_stretch" (per rank). requestFromConfigJson reads it back.
std::string modelRunConfigJson(const std::string& planJson, Backend backend,
                               const CpuRunOptions& options,
                               const CudaPlacementNote* cuda = nullptr);

}  // namespace ps::runtime
