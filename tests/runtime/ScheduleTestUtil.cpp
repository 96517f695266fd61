#include "tests/runtime/ScheduleTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "runtime/plan/Validator.h"
#include "runtime/run/Presets.h"
#include "runtime/run/RunPlan.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::test {

using runtime::Plan;
using runtime::SimResult;

namespace {

// Length of the union of [start, end) intervals.
std::int64_t unionLength(std::vector<std::pair<std::int64_t, std::int64_t>> iv) {
  std::sort(iv.begin(), iv.end());
  std::int64_t total = 0, curS = 0, curE = std::numeric_limits<std::int64_t>::min();
  for (auto [s, e] : iv) {
    if (s > curE) {
      if (curE > curS) total += curE - curS;
      curS = s;
      curE = e;
    } else {
      curE = std::max(curE, e);
    }
  }
  if (curE > curS) total += curE - curS;
  return total;
}

bool isComputeRecord(const runtime::SimRecord& r) {
  return trace::isCompute(r.kind);
}

}  // namespace

runtime::CostModel uniformCosts(int layers, double fwdUs, double bwdUs, double wgradUs) {
  runtime::UniformCostFlags f;
  f.layers = layers;
  f.fwdUs = fwdUs;
  f.bwdUs = bwdUs;
  f.wgradUs = wgradUs;
  f.actMb = 1;
  auto cost = runtime::uniformCostModel(f);
  EXPECT_TRUE(cost.ok()) << cost.error();
  return cost.ok() ? *cost : runtime::CostModel{};
}

SimResult validateAndSimulate(const Plan& plan, const runtime::CostModel& cost) {
  auto graph = runtime::validatePlan(plan);
  EXPECT_TRUE(graph.ok()) << plan.schedule << ": " << graph.error();
  if (!graph.ok()) return {};
  auto sim = runtime::simulate(plan, *graph, cost);
  EXPECT_TRUE(sim.ok()) << plan.schedule << ": " << sim.error();
  return sim.ok() ? std::move(*sim) : SimResult{};
}

trace::RunTrace simulateThroughTraceFile(const runtime::PlanSpec& spec) {
  runtime::RunPlanRequest request;
  request.spec = spec;
  request.name = "test";
  TempDir dir;
  auto store = trace::TraceStore::open(dir.file("run.sqlite"), trace::TraceStore::Mode::ReadWrite);
  EXPECT_TRUE(store.ok());
  if (!store.ok()) return {};
  auto ran = runtime::runPlan(request, {"", &*store});
  EXPECT_TRUE(ran.ok()) << ran.error();
  if (!ran.ok()) return {};
  EXPECT_EQ(ran->status, trace::RunStatus::Complete) << ran->message;
  auto run = trace::loadRun(*store, ran->runId.value_or(-1));
  EXPECT_TRUE(run.ok()) << run.error();
  return run.ok() ? std::move(*run) : trace::RunTrace{};
}

std::int64_t StepMeasure::maxIdleNs() const {
  return idleNs.empty() ? 0 : *std::max_element(idleNs.begin(), idleNs.end());
}

StepMeasure measureStep(const Plan& plan, const SimResult& sim, int step) {
  StepMeasure m;
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> perRank(plan.numRanks);
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = 0;
  for (const auto& r : sim.records) {
    if (!isComputeRecord(r) || r.step != step) continue;
    perRank[r.rank].emplace_back(r.start_ns, r.end_ns);
    lo = std::min(lo, r.start_ns);
    hi = std::max(hi, r.end_ns);
  }
  m.spanNs = hi > lo ? hi - lo : 0;
  double sum = 0;
  for (const auto& iv : perRank) {
    const std::int64_t busy = unionLength(iv);
    m.idleNs.push_back(m.spanNs - busy);
    sum += m.spanNs ? 1.0 - static_cast<double>(busy) / static_cast<double>(m.spanNs) : 0.0;
  }
  m.bubble = plan.numRanks ? sum / plan.numRanks : 0.0;
  return m;
}

double steadyStateBubble(const Plan& plan, const SimResult& sim) {
  const int last = plan.steps - 1;
  double sum = 0;
  for (int rank = 0; rank < plan.numRanks; ++rank) {
    std::int64_t from = std::numeric_limits<std::int64_t>::max(), to = from;
    std::vector<std::pair<std::int64_t, std::int64_t>> iv;
    for (const auto& r : sim.records) {
      if (!isComputeRecord(r) || r.rank != rank) continue;
      if (r.step == 1) from = std::min(from, r.start_ns);
      if (r.step == last) to = std::min(to, r.start_ns);
      iv.emplace_back(r.start_ns, r.end_ns);
    }
    for (auto& [s, e] : iv) {  // clip to the window
      s = std::clamp(s, from, to);
      e = std::clamp(e, from, to);
    }
    sum += 1.0 - static_cast<double>(unionLength(iv)) / static_cast<double>(to - from);
  }
  return sum / plan.numRanks;
}

std::vector<double> peakActivationUnits(const Plan& plan, const runtime::CostModel& cost,
                                        const SimResult& sim) {
  const double unit = static_cast<double>(runtime::activationBytes(plan, cost, 0));
  std::vector<double> out;
  for (auto bytes : sim.peakActivationBytes)
    out.push_back(static_cast<double>(bytes) / unit);
  return out;
}

std::string formatPrograms(const Plan& plan) {
  std::string out;
  for (int r = 0; r < plan.numRanks; ++r) {
    out += "r" + std::to_string(r) + ":";
    const auto& prog = plan.programs[r];
    for (std::size_t i = 0; i < prog.size(); ++i) {
      auto cell = [&](const runtime::Action& a) {
        std::string c = runtime::actionLabel(a);
        if (plan.steps > 1) c += "." + std::to_string(a.step);
        return c;
      };
      out += i ? "," : " ";
      if (prog[i].overlapNext && i + 1 < prog.size()) {
        out += "(" + cell(prog[i]) + ";" + cell(prog[i + 1]) + ")";
        ++i;
      } else {
        out += cell(prog[i]);
      }
    }
    out += "\n";
  }
  return out;
}

void expectGolden(const std::string& name, const std::string& actual) {
  const std::string path = test::sourcePath("tests/runtime/golden/" + name);
  const char* update = std::getenv("PIPESCOPE_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    writeFile(path, actual);
    return;
  }
  EXPECT_EQ(readFile(path), actual)
      << "golden " << path << " differs (PIPESCOPE_UPDATE_GOLDEN=1 rewrites it)";
}

runtime::RunPlanRequest tinyModelRun(runtime::Backend backend, int stages, int microbatches,
                                     int steps) {
  runtime::RunPlanRequest r;
  r.spec.schedule = "1f1b";
  r.spec.stages = stages;
  r.spec.microbatches = microbatches;
  r.spec.steps = steps;
  r.spec.uniform.actMb = 1;
  r.backend = backend;
  r.exec.model.hidden = 8;
  r.exec.model.seq = 4;
  r.exec.model.microbatchSize = 2;
  r.exec.model.heads = 2;
  r.exec.model.ffnMultiplier = 2;
  return r;
}

runtime::SimResult simulateSpec(const runtime::PlanSpec& spec) {
  auto built = runtime::buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  if (!built.ok()) return {};
  auto sim = runtime::simulate(built->plan, built->graph, built->cost);
  EXPECT_TRUE(sim.ok()) << sim.error();
  return sim.ok() ? std::move(*sim) : runtime::SimResult{};
}

runtime::PlanSpec presetSpec(const std::string& name) {
  auto p = runtime::findPreset(name);
  EXPECT_TRUE(p.ok()) << p.error();
  return p.ok() ? p->spec : runtime::PlanSpec{};
}

}  // namespace ps::test
