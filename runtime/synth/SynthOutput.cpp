#include "runtime/synth/SynthOutput.h"

#include <algorithm>

#include "runtime/plan/Lowering.h"
#include "runtime/plan/TorchCsv.h"
#include "runtime/run/Explore.h"
#include "runtime/run/RunPlan.h"

namespace ps::runtime::synth {
namespace {

std::string cutOf(const Plan& plan) {
  std::vector<int> out;
  for (int s = 1; s < plan.numStages; ++s)
    out.push_back(plan.placement[0][s].firstLayer);
  return boundariesText(out);
}

}  // namespace

std::string synthCsvText(const BuiltPlan& built, bool withComms) {
  if (!withComms) return writeTorchCsvComputeOnly(built.plan);
  auto programs = lowerCommunication(built.plan, built.graph);
  for (auto& program : programs)  // torch has no spelling for OPT
    std::erase_if(program, [](const Action& a) { return a.kind == OpKind::OPT; });
  return writeTorchCsvComms(programs);
}

PlanSpec replaySpec(const SynthRequest& request, const SynthResult& result,
                    const std::string& csvPath) {
  PlanSpec spec = request.spec;
  spec.scheduleFile = csvPath;
  spec.boundaries = cutOf(result.built->plan);
  spec.layers = result.built->plan.numLayers;
  spec.splitBackward = false;  // the file says which ops there are
  return spec;
}

Result<std::vector<double>> capsOfSchedule(const SynthRequest& request,
                                           const std::string& schedule) {
  auto skeleton = buildPlan(skeletonSpec(request));
  if (!skeleton) return Error{"synth: " + skeleton.error()};
  PlanSpec spec = request.spec;
  spec.rankMemoryGb.clear();
  spec.schedule = schedule;
  spec.boundaries = cutOf(skeleton->plan);
  auto built = buildPlan(spec);
  if (!built) return Error{"--cap-of " + schedule + ": " + built.error()};
  auto sim = simulatePlan(*built, nullptr);
  if (!sim) return Error{"--cap-of " + schedule + ": " + sim.error()};
  const auto peak = *std::max_element(sim->peakMemory.begin(), sim->peakMemory.end());
  return std::vector<double>(static_cast<std::size_t>(built->plan.numRanks),
                             static_cast<double>(peak) / (1024.0 * 1024.0 * 1024.0));
}

}  // namespace ps::runtime::synth
