#include "runtime/fit/FittedModel.h"

#include <memory>

namespace ps::runtime::fit {

using trace::OpKind;

Result<CostModel> fittedCostModel(const FittedPlan& fit, const FitOptions& options,
                                  std::vector<std::string>& notes) {
  const RecordedProgram& p = fit.program;
  const int k = std::max(1, options.layersPerStage);
  CostModel model;
  const double state = model.stateBytesPerParamByte;
  auto mean = [&](int s, OpKind kind) {
    const KindCost* c = fit.costs.find(s, kind);
    return c != nullptr ? c->meanNs : 0.0;
  };
  bool splitAssumed = false;
  for (int s = 0; s < p.stages; ++s) {
    if (fit.costs.find(s, OpKind::F) == nullptr)
      return Error{"fit: stage " + std::to_string(s) + " has no forward ops in the fitted steps"};
    double input = mean(s, OpKind::I), weight = mean(s, OpKind::W);
    if (!p.splitBackward) {
      const double whole = mean(s, OpKind::B);
      weight = whole * options.wgradShare;
      input = whole - weight;
      splitAssumed = splitAssumed || whole > 0;
    }
    const int rank = p.rankOfStage[static_cast<std::size_t>(s)];
    const RankMemoryFit& mem = fit.memory.ranks[static_cast<std::size_t>(rank)];
    const double perStage = 1.0 / (p.chunks * k);
    for (int j = 0; j < k; ++j) {
      LayerCost layer;
      layer.name = "stage" + std::to_string(s) + (k > 1 ? "." + std::to_string(j) : "");
      layer.fwdNs = mean(s, OpKind::F) / k;
      layer.inputGradNs = input / k;
      layer.weightGradNs = weight / k;
      layer.actBytes = static_cast<std::int64_t>(mem.perMicrobatchBytes * perStage);
      layer.paramBytes = static_cast<std::int64_t>(mem.fixedBytes / state * perStage);
      // Every layer of the stage hands on as much as the stage does: a boundary moved inside
      // it then carries the recorded size, not the activations' guess.
      const double known = fit.costs.link.boundaryBytes[static_cast<std::size_t>(s)];
      layer.outputBytes =
          static_cast<std::int64_t>(known >= 0 ? known : fit.costs.link.medianBytes);
      model.layers.push_back(layer);
    }
  }
  if (splitAssumed)
    notes.push_back("backward recorded whole (B): the what-if's I/W split assumes W = " +
                    formatNumber(options.wgradShare * 100) + " % of B (--wgrad-share)");
  model.defaultLink.bytesPerNs = fit.costs.link.bytesPerNs;
  model.defaultLink.latencyNs = fit.fittedLatencyNs;
  // The optimizer: time per byte of the weights it updates, where the memory fit sized them.
  double nsPerByte = 0;
  int ranksWithOpt = 0;
  for (int r = 0; r < p.ranks; ++r) {
    const double opt = fit.costs.optimizerNs[static_cast<std::size_t>(r)];
    const double params = fit.memory.ranks[static_cast<std::size_t>(r)].fixedBytes / state;
    if (opt <= 0 || params < 1) continue;
    nsPerByte += opt / params;
    ++ranksWithOpt;
  }
  if (ranksWithOpt > 0)
    model.optimizerNsPerParamByte = nsPerByte / ranksWithOpt;
  else if (p.hasOptimizer)
    notes.push_back(
        "optimizer step not modelled: no memory samples to size the weights it updates");
  if (auto ok = checkCostRanges(model, "fit"); !ok) return std::move(ok).takeError();
  return model;
}

PlanSpec fittedSpec(const FittedPlan& fit, const FitOptions& options, CostModel model,
                    const std::string& scheduleFile) {
  const RecordedProgram& p = fit.program;
  const int k = std::max(1, options.layersPerStage);
  PlanSpec spec;
  if (!fit.match.name.empty()) {
    spec.schedule = fit.match.name;
    spec.stages = p.ranks;
    spec.microbatches = p.microbatches;
    spec.chunks = p.chunks;
  } else {
    spec.scheduleFile = scheduleFile;
  }
  spec.layers = p.stages * k;
  for (int s = 1; s < p.stages; ++s)
    spec.boundaries += (s > 1 ? "," : "") + std::to_string(s * k);
  spec.steps = static_cast<int>(p.steps.size());
  spec.optimizerSync = p.optimizerBarrier ? OptimizerSync::Barrier : OptimizerSync::None;
  spec.recompute = p.recompute;
  spec.costs = std::make_shared<const CostModel>(std::move(model));
  return spec;
}

}  // namespace ps::runtime::fit
