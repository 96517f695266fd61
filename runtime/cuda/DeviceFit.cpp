#include "runtime/cuda/DeviceFit.h"

#include <algorithm>
#include <cstdio>

#include "runtime/model/Layer.h"

namespace ps::runtime {
namespace {

constexpr std::int64_t kBlasWorkspaceBytes = 32LL << 20;

std::string gib(std::int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1LL << 30));
  return text;
}

int optimizerStateCopies(const OptimizerConfig& o) {
  if (o.kind == OptimizerKind::Adam) return 2;
  return o.momentum > 0 ? 1 : 0;
}

}  // namespace

std::vector<int> placeRanksOnDevices(int ranks, int devices) {
  // Contiguous blocks: pipeline neighbours share a GPU where they can, so most hops stay on one
  // device.
  std::vector<int> out(std::max(ranks, 0));
  for (int r = 0; r < ranks; ++r)
    out[r] = devices <= 0 ? 0 : ranks <= devices ? r : r * devices / ranks;
  return out;
}

bool ranksUseNccl(int ranks, int devices) {
  return ranks >= 2 && devices >= ranks;
}

std::vector<std::int64_t> estimateRankBytes(const Plan& plan, const ModelConfig& model,
                                            const OptimizerConfig& optimizer) {
  ModelConfig config = model;
  config.layers = plan.numLayers;
  const auto layer = makeLayer(config);
  const std::int64_t paramBytes = 4 * static_cast<std::int64_t>(layer->paramCount());
  const std::int64_t boundary = 4 * config.activationElems();
  const int stateCopies = 2 + optimizerStateCopies(optimizer);  // weights, grads, state

  std::vector<std::int64_t> out(plan.numRanks, kBlasWorkspaceBytes);
  // (replica, stage) → layers, for the stages each rank holds.
  for (int r = 0; r < plan.numReplicas(); ++r)
    for (int st = 0; st < plan.numStages; ++st) {
      const StagePlacement& p = plan.placement[r][st];
      const std::int64_t layers = p.lastLayer - p.firstLayer + 1;
      out[p.rank] += stateCopies * layers * paramBytes;
      // 2BW keeps one more (published) copy of the weights, nothing more.
      if (plan.versioning == WeightVersioning::DoubleBuffered ||
          plan.versioning == WeightVersioning::Predicted)
        out[p.rank] += layers * paramBytes;
      if (plan.versioning == WeightVersioning::Reconstructed)  // the average and a rebuilt copy
        out[p.rank] += 2 * layers * paramBytes;
    }
  for (int rank = 0; rank < plan.numRanks; ++rank) {
    // Walk the program: a micro-batch holds its stash from F until its W (or B).
    std::int64_t now = 0;
    std::int64_t peak = 0;
    for (const Action& a : plan.programs[rank]) {
      if (a.stage < 0) continue;
      const int replica = a.microbatch >= 0 ? plan.replicaOf(a.microbatch) : 0;
      const StagePlacement& p = plan.placement[replica][a.stage];
      const std::int64_t layers = p.lastLayer - p.firstLayer + 1;
      std::int64_t stash = layers * layer->backwardStashBytes() + 3 * boundary;
      if (plan.versioning == WeightVersioning::Stashed ||
          plan.versioning == WeightVersioning::Blended)
        stash += layers * paramBytes;
      if (a.kind == OpKind::F) now += stash;
      if (a.kind == OpKind::W || a.kind == OpKind::B) now -= stash;
      peak = std::max(peak, now);
    }
    out[rank] += peak;
  }
  return out;
}

std::string memoryShortfall(const std::vector<int>& deviceOfRank,
                            const std::vector<std::int64_t>& rankBytes,
                            const std::vector<DeviceMemory>& devices) {
  for (const DeviceMemory& d : devices) {
    std::int64_t need = 0;
    std::string ranks;
    for (std::size_t r = 0; r < deviceOfRank.size(); ++r) {
      if (deviceOfRank[r] != d.index) continue;
      need += rankBytes[r];
      ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    }
    if (need > d.freeBytes)
      return "GPU " + std::to_string(d.index) + " (" + d.name + ") needs " + gib(need) +
             " for rank" + (ranks.find(',') == std::string::npos ? " " : "s ") + ranks +
             " but has " + gib(d.freeBytes) + " free";
  }
  return "";
}

}  // namespace ps::runtime
