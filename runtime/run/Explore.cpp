#include "runtime/run/Explore.h"

#include <algorithm>
#include <set>

#include "runtime/cost/CostJson.h"
#include "runtime/cost/Partitioner.h"
#include "runtime/plan/PlanLimits.h"
#include "runtime/run/DeviceMapping.h"
#include "runtime/run/MappingSearch.h"
#include "runtime/run/PlanSize.h"
#include "runtime/run/RunPlan.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {

std::vector<int> boundariesOf(const Plan& plan) {
  std::vector<int> out;
  for (int s = 1; s < plan.numStages; ++s)
    out.push_back(plan.placement[0][s].firstLayer);
  return out;
}

namespace {

bool takesChunks(const std::string& schedule) {
  return schedule == "interleaved-1f1b" || schedule == "looped-bfs";
}

// Step time, bubble and peaks of one built candidate.
Result<ExploreCandidate> measure(const BuiltPlan& built, const std::atomic<bool>* cancel) {
  // runPlan's own simulation and checks: a candidate ranked here is one `sim` accepts.
  auto sim = simulatePlan(built, cancel);
  if (!sim) return std::move(sim).takeError();
  ExploreCandidate c;
  c.stepTimeNs = sim->makespan;
  std::vector<std::int64_t> busy(static_cast<std::size_t>(built.plan.numRanks), 0);
  for (const SimRecord& r : sim->records)
    if (trace::isCompute(r.kind)) busy[r.rank] += r.end_ns - r.start_ns;
  double idle = 0;
  for (std::int64_t b : busy)
    idle += sim->makespan > 0 ? 1.0 - static_cast<double>(b) / sim->makespan : 0;
  c.bubbleRatio = busy.empty() ? 0 : idle / static_cast<double>(busy.size());
  c.peakMemoryPerRank = sim->peakMemory;
  c.peakMemoryBytes = *std::max_element(sim->peakMemory.begin(), sim->peakMemory.end());
  c.boundaries = boundariesOf(built.plan);
  c.chunks = built.plan.chunks;
  c.microbatches = built.plan.numMicrobatches();
  if (!isRankOrder(built.deviceOrder)) c.mapping = deviceOrderText(built.deviceOrder);
  c.throughputPerS =
      c.stepTimeNs > 0 ? c.microbatches * 1e9 / static_cast<double>(c.stepTimeNs) : 0;
  return c;
}

// One point of the sweep; each is tried with three cuts.
struct Point {
  std::string schedule;
  int d = 1, m = 0, v = 1;
  std::string mapping;
};

PlanSpec pointSpec(const PlanSpec& base, const Point& point, int p, int layers) {
  PlanSpec s = base;
  s.schedule = point.schedule;
  s.scheduleFile.clear();
  s.stages = p / point.d;
  s.dataParallel = point.d;
  s.mapping = point.mapping;
  s.microbatches = point.m;
  s.chunks = point.v;
  s.layers = layers;
  s.steps = 1;
  s.boundaries.clear();  // the partitioner's cut, or the even one
  return s;
}

// The sweep's work before any of it is done (issue 30, item 17: p = 256 with m up to 4096 and
// V up to 8 ran 9 minutes at 3.6 GB without a line of output).
Status checkSweepSize(const ExploreSpec& sweep, const std::vector<Point>& points, int p) {
  std::vector<int> nodes;
  if (!sweep.base.topology.empty())
    if (auto shape = parseTopology(sweep.base.topology)) nodes = shape->nodeSizes();
  double actions = 0;
  int searches = 0;
  for (const Point& point : points) {
    const PlanSpec s = pointSpec(sweep.base, point, p, 0);
    double simulations = 3;  // the three cuts
    if (point.mapping == "auto") {
      simulations *= 1 + mappingSearchEvaluations(p, nodes);
      ++searches;
    }
    actions += estimatedPlanActions(s) * simulations;
  }
  if (actions <= kMaxExploreActions) return {};
  return Error{"explore: the sweep would simulate about " + formatCount(actions) + " actions (" +
               std::to_string(points.size()) + " candidates × 3 cuts" +
               (searches > 0 ? ", " + std::to_string(searches) + " with a --mappings auto search"
                             : std::string()) +
               "; limit " + formatCount(kMaxExploreActions) +
               "): narrow it with fewer or smaller --microbatches, --chunks, --schedules or --dp, "
               "or drop auto from --mappings"};
}

}  // namespace

std::string boundariesText(const std::vector<int>& boundaries) {
  std::string out;
  for (int b : boundaries)
    out += (out.empty() ? "" : ",") + std::to_string(b);
  return out;
}

PlanSpec candidateSpec(const ExploreSpec& spec, const ExploreCandidate& c, int layers) {
  PlanSpec s = spec.base;
  s.stages = spec.base.stages.value_or(4) / c.dataParallel;
  s.dataParallel = c.dataParallel;
  s.mapping = c.mapping;
  s.schedule = c.schedule;
  s.scheduleFile.clear();
  s.microbatches = c.microbatches;
  s.chunks = takesChunks(c.schedule) ? c.chunks : 1;
  s.layers = layers;
  s.boundaries = boundariesText(c.boundaries);
  s.steps = 1;
  return s;
}

Result<ExploreResult> explorePlans(const ExploreSpec& spec, const std::atomic<bool>* cancel,
                                   const ExploreProgress& progress) {
  const int p = spec.base.stages.value_or(4);
  std::vector<std::string> schedules = spec.schedules;
  if (schedules.empty())
    for (const auto& info : scheduleRegistry())
      if (!info.asynchronous) schedules.push_back(info.name);
  for (const auto& name : schedules)
    if (!findSchedule(name))
      return Error{"--schedules: unknown schedule '" + name + "' (see `pipescope-cli schedules`)"};
  std::vector<int> ms = spec.microbatches;
  if (ms.empty()) ms = {2 * p, 4 * p};
  std::vector<int> vs = spec.chunks;
  if (vs.empty()) vs = {1, 2};

  ExploreResult out;
  // One model for every candidate: its layer count fixed up front, and the flags checked once
  // on a plain plan (cut evenly: a memory cap is each candidate's to meet, not the probe's).
  PlanSpec probe = spec.base;
  probe.schedule = "gpipe";
  probe.microbatches = 1;
  probe.chunks = 1;  // the base plan's V (an interleaved plan's 2) is not gpipe's
  probe.steps = 1;
  probe.splitBackward = false;
  probe.dataParallel = 1;  // the base plan's replicas and mapping are candidates' business
  probe.mapping.clear();
  const int maxV = std::max(2, *std::max_element(vs.begin(), vs.end()));
  if (probe.costs) {
    out.layers = static_cast<int>(probe.costs->layers.size());
  } else if (!probe.costsFile.empty()) {
    auto cost = loadCostJson(probe.costsFile);
    if (!cost) return std::move(cost).takeError();
    probe.costs = std::make_shared<const CostModel>(std::move(*cost));  // read once
    out.layers = static_cast<int>(probe.costs->layers.size());
  } else {
    out.layers = probe.layers.value_or(p * maxV);
  }
  // The fewest stages a candidate has: p over the most replicas swept. A model of fewer layers
  // than the devices still sweeps its replicated pipelines (the Piper preset: 4 layers, 4 stages
  // twice); the candidates with more stages than layers are refused one by one, with the reason.
  std::vector<int> dps = spec.dataParallel;
  if (dps.empty()) dps = {1};
  int fewestStages = p;
  for (int d : dps)
    if (d >= 1 && p % d == 0) fewestStages = std::min(fewestStages, p / d);
  if (out.layers < fewestStages)
    return Error{"--layers: the model has " + std::to_string(out.layers) +
                 " layers, fewer than the " + std::to_string(fewestStages) + " stages"};
  probe.stages = fewestStages;
  probe.dataParallel = p / fewestStages;    // the same devices (a --topology still fits)
  probe.microbatches = probe.dataParallel;  // one per replica
  probe.layers = out.layers;
  probe.boundaries = boundariesText(evenBoundaries(out.layers, fewestStages));
  if (auto model = buildPlan(probe); !model) return std::move(model).takeError();
  ExploreSpec sweep = spec;
  sweep.base.costs = probe.costs;  // a cost file is read once, not per candidate

  std::vector<std::string> mappings = spec.mappings;
  if (mappings.empty()) mappings = {spec.base.mapping};
  std::vector<Point> points;  // schedule, D, m, V, mapping
  for (const auto& name : schedules)
    for (int d : dps)
      for (int m : ms)
        for (int v : takesChunks(name) ? vs : std::vector<int>{1})
          for (const auto& mapping : mappings)
            if (d >= 1 && p % d == 0 && m % d == 0) points.push_back({name, d, m, v, mapping});
  PS_TRY(checkSweepSize(sweep, points, p));

  // Per point: the balanced cut, DawnPiper's memory cut, the even cut (often the balanced one).
  std::set<std::string> seen;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& [name, d, m, v, mapping] = points[i];
    if (progress) progress(static_cast<int>(i), static_cast<int>(points.size()));
    for (bool balancedRefused = false; const char* partition : {"balanced", "memory", "even"}) {
      if (cancel && cancel->load()) return Error{"explore cancelled"};
      // The memory cut is the balanced one's refinement: refused with it, not again.
      if (balancedRefused && std::string(partition) == "memory") continue;
      PlanSpec s = pointSpec(sweep.base, points[i], p, out.layers);
      // DawnPiper's: as fast as the balanced cut, the largest stage memory least.
      s.partition = std::string(partition) == "memory" ? "memory" : "time";
      const std::string what = name + (d > 1 ? " dp=" + std::to_string(d) : "") +
                               " m=" + std::to_string(m) +
                               (v > 1 ? " v=" + std::to_string(v) : "") +
                               (mapping.empty() ? "" : " mapping " + mapping) + " " + partition;
      if (std::string(partition) == "even") {
        auto shape = generateSchedule(name, {p / d, m / d, v, 1});
        if (!shape) continue;  // refused once already, as "balanced"
        if (shape->numStages > out.layers) continue;
        s.boundaries = boundariesText(evenBoundaries(out.layers, shape->numStages));
      }
      auto built = buildPlan(s, cancel);
      if (cancel && cancel->load()) return Error{"explore cancelled"};
      if (!built) {
        balancedRefused = std::string(partition) == "balanced";
        out.refused.push_back({what, built.error()});
        continue;
      }
      auto c = measure(*built, cancel);
      if (cancel && cancel->load()) return Error{"explore cancelled"};
      if (!c) {
        out.refused.push_back({what, c.error()});
        continue;
      }
      c->schedule = name;
      c->partition = partition;
      c->dataParallel = d;
      const std::string key = name + "/" + std::to_string(d) + "/" +
                              std::to_string(c->microbatches) + "/" + std::to_string(c->chunks) +
                              "/" + c->mapping + "/" + boundariesText(c->boundaries);
      if (!seen.insert(key).second) continue;
      out.ranked.push_back(std::move(*c));
    }
  }
  if (progress) progress(static_cast<int>(points.size()), static_cast<int>(points.size()));
  std::stable_sort(out.ranked.begin(), out.ranked.end(),
                   [](const ExploreCandidate& a, const ExploreCandidate& b) {
                     if (a.throughputPerS != b.throughputPerS)
                       return a.throughputPerS > b.throughputPerS;
                     return a.peakMemoryBytes < b.peakMemoryBytes;
                   });
  return out;
}

}  // namespace ps::runtime
