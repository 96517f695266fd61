#include "runtime/run/ModelRun.h"

#include "kernels/ComputeDevice.h"
#include "kernels/cpu/Gemm.h"
#include "kernels/cpu/VectorMath.h"
#include "runtime/cuda/CudaBackend.h"
#include "runtime/exec/Calibrate.h"
#include "runtime/run/Backends.h"
#include "trace/JsonWriter.h"

namespace ps::runtime {

Status checkModelOptions(Backend backend, const CpuRunOptions& options) {
  PS_TRY(validate(options.model));
  PS_TRY(validate(options.optimizer));
  const BackendLimits& limits = backendInfo(backend).limits;
  if (!limits.bf16 && options.dtype != kernels::DType::Fp32)
    return Error{"--dtype " + std::string(kernels::dtypeName(options.dtype)) + ": the " +
                 std::string(backendName(backend)) +
                 " backend computes in fp32 only (bf16 needs --backend cuda)"};
  if (!limits.smSplit && options.smSplit)
    return Error{"--sm-split: only the cuda backend splits a GPU's SMs between ranks"};
  return {};
}

void fitModelToPlan(const Plan& plan, ModelConfig& model) {
  model.layers = plan.numLayers;
  const int chunks = plan.numMicrobatches();
  if (model.block != BlockType::Gnn || plan.graphNodes <= 0 || chunks <= 0) return;
  model.microbatchSize = plan.graphNodes / chunks;  // buildPlan checked that M divides N
  model.seq = 1;
}

Result<CostModel> modelCostModel(const BuiltPlan& built, const CpuRunOptions& options,
                                 const CostModel* calibrated) {
  ModelConfig model = options.model;
  fitModelToPlan(built.plan, model);
  CostModel cost;
  if (calibrated) {
    cost = *calibrated;
  } else {
    // Sizes from the real model, times from the plan's cost model (they only move lifetimes).
    auto sizes = cpuModelSizes(model, options.optimizer);
    if (!sizes) return std::move(sizes).takeError();
    cost = std::move(*sizes);
    for (std::size_t l = 0; l < cost.layers.size() && l < built.cost.layers.size(); ++l) {
      cost.layers[l].fwdNs = built.cost.layers[l].fwdNs;
      cost.layers[l].inputGradNs = built.cost.layers[l].inputGradNs;
      cost.layers[l].weightGradNs = built.cost.layers[l].weightGradNs;
    }
    cost.optimizerNsPerParamByte = built.cost.optimizerNsPerParamByte;
  }
  // What the backend emulates: every rank at its real speed (stretched, on the cpu backend, by
  // --rank-speed), one link setting for all pairs.
  cost.ranks.clear();
  cost.links.clear();
  for (std::size_t i = 0; i < built.cost.ranks.size(); ++i) {
    RankCost r;
    r.memoryCapacityBytes = built.cost.ranks[i].memoryCapacityBytes;
    if (i < options.computeStretch.size()) r.speed = 1.0 / options.computeStretch[i];
    cost.ranks.push_back(r);
  }
  cost.defaultLink = {};
  if (options.linkGbps && *options.linkGbps > 0)
    cost.defaultLink.bytesPerNs = *options.linkGbps / 8.0;
  cost.defaultLink.latencyNs = options.linkLatencyUs * 1e3;
  return cost;
}

std::string modelRunConfigJson(const std::string& planJson, Backend backend,
                               const CpuRunOptions& options, const CudaPlacementNote* cuda) {
  trace::JsonWriter w;
  w.beginObject();
  w.key("plan").raw(planJson);
  w.key("backend").value(backendName(backend));
  w.key("model").value(blockTypeName(options.model.block));
  w.key("hidden").value(options.model.hidden);
  w.key("seq").value(options.model.seq);
  w.key("mb_size").value(options.model.microbatchSize);
  w.key("heads").value(options.model.heads);
  w.key("seed").value(static_cast<std::int64_t>(options.model.seed));
  w.key("optimizer").value(optimizerName(options.optimizer.kind));
  w.key("lr").value(static_cast<double>(options.optimizer.lr));
  w.key("dtype").value(kernels::dtypeName(options.dtype));
  w.key("sm_split").value(options.smSplit);
  if (cuda) {
    w.key("cuda").beginObject();
    w.key("transport").value(cuda->transport);
    if (!cuda->smSplit.empty()) w.key("sm_split").value(cuda->smSplit);
    w.endObject();
  }
  // Added after the keys above (readers match on them): the rest of what reruns the run.
  w.key("ffn_multiplier").value(options.model.ffnMultiplier);
  w.key("momentum").value(static_cast<double>(options.optimizer.momentum));
  w.key("beta1").value(static_cast<double>(options.optimizer.beta1));
  w.key("beta2").value(static_cast<double>(options.optimizer.beta2));
  w.key("eps").value(static_cast<double>(options.optimizer.eps));
  w.key("emulated_link_gbps").value(options.linkGbps);
  w.key("emulated_link_latency_us").value(options.linkLatencyUs);
  w.key("event_timing").value(options.eventTiming);
  if (!options.computeStretch.empty()) {  // --rank-speed, really applied (the cpu backend)
    w.key("rank_speed_applied").value("stretched compute to max(speed)/speed of its measured time");
    w.key("compute_stretch").beginArray();
    for (double s : options.computeStretch)
      w.value(s);
    w.endArray();
  }
  // What the backend's numbers were computed with (the cpu backend's kernels).
  if (const BackendInfo& row = backendInfo(backend); row.configJsonTail) row.configJsonTail(w);
  w.endObject();
  return w.str();
}

}  // namespace ps::runtime
