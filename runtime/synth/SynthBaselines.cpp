#include "runtime/synth/SynthBaselines.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "runtime/run/Explore.h"
#include "runtime/run/RunPlan.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime::synth {
namespace {

SynthBaseline simulateOne(const std::string& schedule, PlanSpec spec,
                          const std::atomic<bool>* cancel) {
  SynthBaseline b;
  b.schedule = schedule;
  spec.schedule = schedule;
  spec.splitBackward = false;
  auto built = buildPlan(spec, cancel);
  if (!built) {
    b.refused = built.error();
    return b;
  }
  bool overCap = false;
  auto sim = simulatePlan(*built, cancel, &overCap);
  if (sim) {
    b.stepNs = sim->makespan;
    b.peakPerRank = sim->peakMemory;
    b.sim = std::make_shared<const SimResult>(std::move(*sim));
  } else {
    b.refused = sim.error();
  }
  b.built = std::make_shared<const BuiltPlan>(std::move(*built));
  return b;
}

}  // namespace

std::vector<std::string> baselineSchedules(int chunks) {
  if (chunks == 1) return {"gpipe", "1f1b", "zb-h1", "zb-h2"};
  if (chunks == 2) return {"interleaved-1f1b", "zb-v"};
  return {"interleaved-1f1b"};
}

std::vector<SynthBaseline> simulateBaselines(const SynthRequest& request,
                                             const SynthProblem& problem,
                                             const std::atomic<bool>* cancel) {
  PlanSpec spec = request.spec;
  spec.boundaries = boundariesText(boundariesOf(problem.skeleton->plan));
  std::vector<SynthBaseline> out;
  for (const std::string& schedule : baselineSchedules(spec.chunks))
    out.push_back(simulateOne(schedule, spec, cancel));
  return out;
}

const SynthBaseline* bestBaseline(const std::vector<SynthBaseline>& baselines) {
  const SynthBaseline* best = nullptr;
  for (const SynthBaseline& b : baselines)
    if (b.stepNs && (!best || *b.stepNs < *best->stepNs)) best = &b;
  return best;
}

std::vector<std::int64_t> keysFromSchedule(const SynthProblem& problem, const SimResult& sim) {
  // (kind, stage, micro-batch) -> (start, end) in the simulated schedule.
  std::map<std::tuple<OpKind, int, int>, std::pair<std::int64_t, std::int64_t>> when;
  for (const SimRecord& r : sim.records)
    if (r.step == 0) when[{r.kind, r.stage, r.microbatch}] = {r.start_ns, r.end_ns};
  std::vector<std::int64_t> keys(problem.size(), 0);
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const Action& a = problem.ops[i].action;
    auto at = [&](OpKind k) { return when.find({k, a.stage, a.microbatch}); };
    auto it = at(a.kind);
    std::int64_t key = it != when.end() ? it->second.first : 0;
    if (it == when.end() && a.kind == OpKind::I && at(OpKind::B) != when.end())
      key = at(OpKind::B)->second.first;
    if (it == when.end() && a.kind == OpKind::W && at(OpKind::B) != when.end())
      key = at(OpKind::B)->second.second;
    if (it == when.end() && a.kind == OpKind::B && at(OpKind::I) != when.end())
      key = at(OpKind::I)->second.first;
    keys[i] = key;
  }
  return keys;
}

}  // namespace ps::runtime::synth
