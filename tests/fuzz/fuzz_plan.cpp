// libFuzzer target: the plan flags and the cost JSON (runtime/run/PlanBuilder, runtime/cost).
// The first byte picks the input's form:
//   'J' + text: a cost JSON file (parseCostJson), and when it parses, a small plan simulated on it;
//   anything else: plan flags as whitespace-separated values, in the order
//     schedule stages microbatches chunks layers steps recompute fwd bwd wgrad act gbps latency
//     boundaries
//   (missing ones keep their defaults), clamped to the ranges the CLI flags accept; then any of
//     graph=EDGES lengths=L1,L2,.. slices=K|auto|L1,.. a2a=MB fetch=MB versions=NAME frozen=US
//     dp=D overhead=X
//   (the papers' systems' plan features, issue 15).
// Any input must give a plan (and a simulation) or an error message: never a crash, a hang or a
// sanitizer report. Sizes past what is cheap to build are only size-checked (checkPlanSize).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "runtime/cost/CostJson.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/run/PlanSize.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/sim/Simulator.h"

namespace {

using namespace ps::runtime;

void check(const ps::Status& s) {
  if (!s.ok() && s.error().empty()) __builtin_trap();  // every error must say something
}

void simulateSmall(const BuiltPlan& built) {
  if (built.plan.actionCount() > 1000) return;
  auto sim = simulate(built.plan, built.graph, built.cost);
  if (!sim) {
    if (sim.error().empty()) __builtin_trap();
    return;
  }
  for (const auto& r : sim->records)
    if (r.start_ns < 0 || r.end_ns < r.start_ns) __builtin_trap();  // a wrapped time
  for (const auto& t : sim->transfers)
    if (t.start_ns < 0 || t.send_end_ns < t.start_ns || t.arrival_ns < t.send_end_ns)
      __builtin_trap();
}

long clampInt(const std::string& text, long lo, long hi, long fallback) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str()) return fallback;
  return v < lo ? lo : v > hi ? hi : v;
}

double number(const std::string& text, double fallback) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end == text.c_str() ? fallback : v;
}

void fuzzFlags(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string f[14];
  for (auto& field : f)
    in >> field;
  PlanSpec spec;
  const auto& registry = scheduleRegistry();
  spec.schedule = f[0].empty() ? "1f1b" : f[0];
  if (!f[0].empty() && f[0][0] >= '0' && f[0][0] <= '9')  // a number picks one by index
    spec.schedule =
        registry[static_cast<std::size_t>(clampInt(f[0], 0, 1000, 0)) % registry.size()].name;
  spec.stages = static_cast<int>(clampInt(f[1], 1, 4096, 4));
  spec.microbatches = static_cast<int>(clampInt(f[2], 1, 1 << 20, 8));
  spec.chunks = static_cast<int>(clampInt(f[3], 1, 64, 1));
  if (!f[4].empty()) spec.layers = static_cast<int>(clampInt(f[4], 1, 1 << 20, 4));
  spec.steps = static_cast<int>(clampInt(f[5], 1, 100000, 1));
  spec.recompute = clampInt(f[6], 0, 1, 0) == 1;
  spec.uniform.fwdUs = number(f[7], 100);
  spec.uniform.bwdUs = number(f[8], 200);
  spec.uniform.wgradUs = number(f[9], 100);
  spec.uniform.actMb = number(f[10], 0);
  if (!f[11].empty() && f[11] != "-") spec.uniform.linkGbps = number(f[11], 100);
  spec.uniform.linkLatencyUs = number(f[12], 0);
  spec.boundaries = f[13];
  for (std::string token; in >> token;) {
    const auto eq = token.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = token.substr(0, eq), value = token.substr(eq + 1);
    if (key == "graph") spec.stageGraph = value;
    if (key == "lengths") {
      spec.seqLengths = value;
      spec.microbatches.reset();  // the grouping sets the count
    }
    if (key == "slices") spec.tokenSlices = value;
    if (key == "a2a") spec.a2aMb = number(value, 0);
    if (key == "fetch") spec.fetchMb = number(value, 0);
    if (key == "versions") spec.weightVersions = value;
    if (key == "frozen") spec.frozenUs = number(value, 0);
    if (key == "dp") spec.dataParallel = static_cast<int>(clampInt(value, 1, 64, 1));
    if (key == "overhead") spec.microbatchOverhead = number(value, 0);
  }
  if (!spec.seqLengths.empty() && spec.seqLengths[0] == '@') spec.seqLengths.clear();  // no files

  const ps::Status size = checkPlanSize(spec);
  check(size);
  if (!size.ok()) return;
  // Cheap enough to build under the sanitizers: the size check above covers the rest.
  const double actions =
      static_cast<double>(*spec.stages) * spec.chunks * spec.microbatches.value_or(64) * spec.steps;
  if (actions > 500 || spec.layers.value_or(0) > 1024) return;
  auto built = buildPlan(spec);
  if (!built) {
    if (built.error().empty()) __builtin_trap();
    return;
  }
  simulateSmall(*built);
}

void fuzzCostJson(std::string_view text) {
  auto cost = parseCostJson(text, "fuzz.json");
  if (!cost) {
    if (cost.error().empty()) __builtin_trap();
    return;
  }
  if (cost->layers.size() > 256) return;
  PlanSpec spec;
  spec.stages = 2;
  spec.microbatches = 4;
  spec.costs = std::make_shared<const CostModel>(std::move(*cost));
  auto built = buildPlan(spec);
  if (!built) {
    if (built.error().empty()) __builtin_trap();
    return;
  }
  simulateSmall(*built);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!text.empty() && text[0] == 'J')
    fuzzCostJson(text.substr(1));
  else
    fuzzFlags(text);
  return 0;
}
