#include "runtime/fit/PlanFit.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

#include "runtime/fit/FittedModel.h"
#include "runtime/plan/TorchCsv.h"
#include "runtime/sim/SimRows.h"
#include "runtime/sim/Simulator.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::runtime::fit {
namespace {

using OpKey = std::tuple<int, int, int, int, std::size_t>;  // rank, kind, stage, mb, step index
struct OpEnd {
  OpKey key;
  std::int64_t end = 0;  // from its step's start
  bool operator<(const OpEnd& o) const { return key < o.key; }
};

// Per compute op of the steps at `positions` (indexes into the run's complete steps, whose
// numbers are `stepNumbers`), its end from its step's start; sorted by key (a sorted vector, not
// a map: a million inserts into a tree were a fifth of a fit).
std::vector<OpEnd> opEnds(const trace::RunTrace& run, const trace::RunAnalysis& a,
                          const RecordedProgram& p, const std::vector<int>& stepNumbers,
                          const std::vector<int>& positions, bool normalise) {
  std::map<int, std::pair<std::size_t, std::int64_t>> stepOf;  // number -> (index, start)
  for (const trace::StepStats& s : a.steps) {
    const auto it = std::find(stepNumbers.begin(), stepNumbers.end(), s.step);
    if (it == stepNumbers.end()) continue;
    const auto index = static_cast<int>(it - stepNumbers.begin());
    if (std::find(positions.begin(), positions.end(), index) == positions.end()) continue;
    stepOf[s.step] = {static_cast<std::size_t>(index), s.start_ns};
  }
  std::vector<OpEnd> ends;
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const trace::OpColumns& lane = run.ranks[r].lane(trace::Lane::Compute);
    for (std::size_t i = 0; i < lane.size(); ++i) {
      const auto it = stepOf.find(lane.step[i]);
      if (it == stepOf.end() || lane.stage[i] < 0 || lane.microbatch[i] < 0) continue;
      const int mb = normalise ? p.microbatchIndex(p.stepIndexOf(lane.step[i]), lane.microbatch[i])
                               : lane.microbatch[i];
      ends.push_back({{static_cast<int>(r), static_cast<int>(lane.kind[i]), lane.stage[i], mb,
                       it->second.first},
                      lane.end[i] - it->second.second});
    }
  }
  std::sort(ends.begin(), ends.end());
  return ends;
}

struct Measured {
  const trace::RunTrace& run;
  trace::RunAnalysis analysis;
  std::vector<int> fitPositions;  // indexes of the fit steps among the complete steps
};

// Mean span, bubble and per-rank bubble of the steps at `positions` of `a`'s steps.
void summarise(const trace::RunAnalysis& a, const std::vector<int>& positions, int ranks,
               std::int64_t& stepNs, double& bubble, std::vector<double>& rankBubble) {
  rankBubble.assign(static_cast<std::size_t>(ranks), 0.0);
  double span = 0;
  bubble = 0;
  std::size_t n = 0;
  for (int pos : positions) {
    if (pos < 0 || pos >= static_cast<int>(a.steps.size())) continue;
    const trace::StepStats& s = a.steps[static_cast<std::size_t>(pos)];
    span += static_cast<double>(s.span_ns());
    bubble += s.bubble_ratio;
    for (int r = 0; r < ranks && r < static_cast<int>(s.rank_bubble.size()); ++r)
      rankBubble[static_cast<std::size_t>(r)] += s.rank_bubble[static_cast<std::size_t>(r)];
    ++n;
  }
  if (n == 0) return;
  stepNs = std::llround(span / static_cast<double>(n));
  bubble /= static_cast<double>(n);
  for (double& b : rankBubble)
    b /= static_cast<double>(n);
}

// The fitted plan simulated at link latency `latencyNs`, compared with the run.
Result<FitQuality> replay(BuiltPlan& built, double latencyNs, const Measured& m,
                          const RecordedProgram& p, const std::atomic<bool>* cancel) {
  built.cost.defaultLink.latencyNs = latencyNs;
  auto sim = simulate(built.plan, built.graph, built.cost, cancel);
  if (!sim) return Error{"fit: replay: " + sim.error()};
  const trace::RunHeader header = planRunHeader(built.plan, built.cost, "sim", "fit replay", "{}");
  const trace::RunTrace predicted = simRunTrace(header, *sim, built.plan.steps);
  const trace::RunAnalysis pa = trace::analyzeRun(predicted);
  FitQuality q;
  std::vector<double> measuredRanks, predictedRanks;
  summarise(m.analysis, m.fitPositions, p.ranks, q.measuredStepNs, q.measuredBubble, measuredRanks);
  summarise(pa, m.fitPositions, p.ranks, q.predictedStepNs, q.predictedBubble, predictedRanks);
  for (int r = 0; r < p.ranks; ++r)
    q.ranks.push_back({r, measuredRanks[static_cast<std::size_t>(r)],
                       predictedRanks[static_cast<std::size_t>(r)]});
  std::vector<int> simSteps;
  for (std::size_t i = 0; i < p.steps.size(); ++i)
    simSteps.push_back(static_cast<int>(i));
  const auto want = opEnds(m.run, m.analysis, p, p.steps, m.fitPositions, true);
  const auto got = opEnds(predicted, pa, p, simSteps, m.fitPositions, false);
  auto g = got.begin();
  for (const OpEnd& w : want) {
    g = std::lower_bound(g, got.end(), w);
    if (g == got.end()) break;
    if (g->key != w.key) continue;
    const auto [rank, kind, stage, mb, index] = w.key;
    q.worst.push_back(
        {rank, static_cast<trace::OpKind>(kind), stage, mb, p.steps[index], w.end, g->end});
  }
  const auto bySize = [](const OpResidual& a, const OpResidual& b) {
    return std::llabs(a.predictedEndNs - a.measuredEndNs) >
           std::llabs(b.predictedEndNs - b.measuredEndNs);
  };
  const std::size_t keep = std::min<std::size_t>(5, q.worst.size());
  std::partial_sort(q.worst.begin(), q.worst.begin() + static_cast<std::ptrdiff_t>(keep),
                    q.worst.end(), bySize);
  q.worst.resize(keep);
  return q;
}

// The replay's mean step span over the fit steps straight from the simulation's compute records
// (the latency search needs nothing else: building and analysing a RunTrace per probe was most
// of a fit's time).
Result<std::int64_t> replayStepNs(BuiltPlan& built, double latencyNs, const Measured& m,
                                  const std::atomic<bool>* cancel) {
  built.cost.defaultLink.latencyNs = latencyNs;
  auto sim = simulate(built.plan, built.graph, built.cost, cancel);
  if (!sim) return Error{"fit: replay: " + sim.error()};
  std::vector<std::int64_t> first(static_cast<std::size_t>(built.plan.steps), INT64_MAX),
      last(static_cast<std::size_t>(built.plan.steps), INT64_MIN);
  for (const SimRecord& r : sim->records) {
    if (!trace::isCompute(r.kind) || r.step < 0 || r.step >= built.plan.steps) continue;
    first[static_cast<std::size_t>(r.step)] =
        std::min(first[static_cast<std::size_t>(r.step)], r.start_ns);
    last[static_cast<std::size_t>(r.step)] =
        std::max(last[static_cast<std::size_t>(r.step)], r.end_ns);
  }
  double span = 0;
  int n = 0;
  for (int pos : m.fitPositions) {
    if (pos < 0 || pos >= built.plan.steps || first[static_cast<std::size_t>(pos)] == INT64_MAX)
      continue;
    span += static_cast<double>(last[static_cast<std::size_t>(pos)] -
                                first[static_cast<std::size_t>(pos)]);
    ++n;
  }
  return n > 0 ? std::llround(span / n) : 0;
}

// The latency at which the replay's step time meets the measured one (bisection: the step
// time does not fall as latency grows). Stays at the measured fit when that is already within
// 0.5 %, and at 0 when even free links give a longer step.
Result<double> fitLatency(BuiltPlan& built, double measuredLatency, const Measured& m,
                          const RecordedProgram& p, const std::atomic<bool>* cancel) {
  auto first = replayStepNs(built, measuredLatency, m, cancel);
  if (!first) return std::move(first).takeError();
  const std::int64_t base = *first;
  std::int64_t measuredNs = 0;
  double unusedBubble = 0;
  std::vector<double> unusedRanks;
  summarise(m.analysis, m.fitPositions, p.ranks, measuredNs, unusedBubble, unusedRanks);
  const auto target = static_cast<double>(measuredNs);
  const auto error = [&](std::int64_t predicted) {
    return (static_cast<double>(predicted) - target) / target;
  };
  if (target <= 0 || std::abs(error(base)) < 0.005) return measuredLatency;
  double lo = 0, hi = measuredLatency;
  if (error(base) < 0) {
    lo = measuredLatency;
    hi = measuredLatency + target;
  }
  for (int i = 0; i < 40 && hi - lo > 1.0; ++i) {
    const double mid = (lo + hi) / 2;
    auto q = replayStepNs(built, mid, m, cancel);
    if (!q) return std::move(q).takeError();
    if (std::abs(error(*q)) < 0.001) return mid;
    (error(*q) < 0 ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

std::string defaultScheduleFile(const trace::RunTrace& run) {
  return (std::filesystem::temp_directory_path() /
          ("pipescope-fit-run" + std::to_string(run.info.id) + ".csv"))
      .string();
}

}  // namespace

double FitQuality::stepError() const {
  return measuredStepNs > 0 ? static_cast<double>(predictedStepNs - measuredStepNs) /
                                  static_cast<double>(measuredStepNs)
                            : 0.0;
}

Result<FittedPlan> fitPlan(const trace::RunTrace& run, const FitOptions& options,
                           const std::atomic<bool>* cancel) {
  Measured m{run, trace::analyzeRun(run), {}};
  std::vector<int> complete;
  for (const trace::StepStats& s : m.analysis.steps)
    complete.push_back(s.step);
  auto program = readRecordedProgram(run, complete);
  if (!program) return std::move(program).takeError();
  for (int step : program->fitSteps)
    m.fitPositions.push_back(static_cast<int>(program->stepIndexOf(step)));
  FittedPlan fit;
  fit.program = std::move(*program);
  fit.match = matchSchedule(fit.program);
  fit.costs = fitCosts(run, fit.program);
  fit.memory = fitMemory(run, fit.program);
  fit.measuredLatencyNs = fit.fittedLatencyNs = fit.costs.link.latencyNs;
  fit.notes = fit.program.notes;
  for (const auto& n : fit.memory.notes)
    fit.notes.push_back(n);
  if (options.layersPerStage <= 1)
    fit.notes.push_back(
        "one layer per stage (the trace has no per-layer ranges): "
        "boundaries move whole stages; --layers-per-stage K splits each in K");
  auto fitted = fittedCostModel(fit, options, fit.notes);
  if (!fitted) return std::move(fitted).takeError();
  CostModel model = std::move(*fitted);
  std::string scheduleFile;
  if (fit.match.name.empty()) {
    scheduleFile = options.scheduleFile.empty() ? defaultScheduleFile(run) : options.scheduleFile;
    fit.scheduleCsv = recordedScheduleCsv(fit.program);
    if (auto ok = writeTorchCsvFile(scheduleFile, fit.scheduleCsv); !ok)
      return Error{"fit: " + ok.error()};
  }
  fit.spec = fittedSpec(fit, options, model, scheduleFile);
  auto built = buildPlan(fit.spec, cancel);
  if (!built) return Error{"fit: the fitted plan does not build: " + built.error()};
  if (options.fitLatency && fit.program.ranks > 1) {
    auto latency = fitLatency(*built, fit.measuredLatencyNs, m, fit.program, cancel);
    if (!latency) return std::move(latency).takeError();
    fit.fittedLatencyNs = *latency;
    model.defaultLink.latencyNs = *latency;
    fit.spec.costs = std::make_shared<const CostModel>(model);
  }
  auto quality = replay(*built, fit.fittedLatencyNs, m, fit.program, cancel);
  if (!quality) return std::move(quality).takeError();
  fit.quality = std::move(*quality);
  if (cancel != nullptr && cancel->load()) return Error{"fit cancelled"};
  return fit;
}

}  // namespace ps::runtime::fit
