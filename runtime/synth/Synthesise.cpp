#include "runtime/synth/Synthesise.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <random>

#include "runtime/plan/Validator.h"
#include "runtime/run/RunPlan.h"
#include "runtime/synth/ListSynth.h"
#include "runtime/synth/SynthSearch.h"
#include "trace/Units.h"

namespace ps::runtime::synth {
namespace {

// Priority rules, each a key per op from (class of its kind, micro-batch, stage): a lower class
// goes first, then the older micro-batch; forwards go down the pipeline, backwards up.
struct Rule {
  const char* name;
  int f, b, w;                // class of F, of I (or B), of W
  bool breadthFirst = false;  // forwards by stage, then micro-batch
};
constexpr Rule kRules[] = {
    {"backward first (zero-bubble's I > F > W)", 1, 0, 2},
    {"1F1B's memory-lean I > W > F", 2, 0, 1},
    {"forwards first (GPipe's F > I > W)", 0, 1, 2},
    {"oldest micro-batch first", 0, 0, 0},
    {"breadth-first forwards (I > F > W)", 1, 0, 2, true},
};

Keys ruleKeys(const SynthProblem& p, const Rule& rule) {
  const Plan& plan = p.skeleton->plan;
  const std::int64_t S = plan.numStages, M = plan.numMicrobatches();
  Keys keys(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Action& a = p.ops[i].action;
    const bool forward = a.kind == OpKind::F;
    const int cls = forward ? rule.f : a.kind == OpKind::W ? rule.w : rule.b;
    const std::int64_t stageTerm = forward ? a.stage : S - 1 - a.stage;
    const std::int64_t order =
        forward && rule.breadthFirst ? a.stage * M + a.microbatch : a.microbatch * S + stageTerm;
    const std::int64_t kindTerm = forward ? 0 : a.kind == OpKind::W ? 2 : 1;
    keys[i] = (cls * M * S + order) * 3 + kindTerm;
  }
  return keys;
}

// The best order so far and where it came from.
struct Best {
  Order order;
  ListPass pass;
  std::string from;
  bool found = false;
};

void consider(Order order, ListPass pass, const std::string& from, Best& best) {
  if (!pass.complete || (best.found && !better(pass, best.pass))) return;
  best = {std::move(order), std::move(pass), from, true};
}

// Phase 1: every rule's keys and every fitting generator's (its start times), list-scheduled;
// the best of them improved over its keys with half the passes.
void searchKeys(const SynthProblem& p, const std::vector<SynthBaseline>& baselines,
                SearchBudget& budget, ListWorkspace& work, Best& best) {
  Keys bestKeys;
  ListPass bestPass;
  std::string from;
  auto tryKeys = [&](Keys keys, const std::string& name) {
    ListPass pass;
    listSchedule(p, keys, work, pass);
    if (!pass.complete || (!bestKeys.empty() && !better(pass, bestPass))) return;
    bestKeys = std::move(keys);
    bestPass = std::move(pass);
    from = name;
  };
  for (const Rule& rule : kRules)
    tryKeys(ruleKeys(p, rule), rule.name);
  for (const SynthBaseline& b : baselines)
    if (b.sim) tryKeys(keysFromSchedule(p, *b.sim), b.schedule + "'s start times");
  if (bestKeys.empty()) return;
  improveKeys(p, budget, work, bestKeys, bestPass);
  consider(bestPass.order, bestPass, from + ", list-scheduled", best);
}

// Phase 2: the orders replayed as they are (phase 1's and each fitting generator's), the best
// improved move by move with the passes left.
void searchOrders(const SynthProblem& p, const std::vector<SynthBaseline>& baselines,
                  SearchBudget& budget, ListWorkspace& work, Best& best) {
  std::vector<std::pair<Order, std::string>> starts;
  if (best.found) starts.emplace_back(best.order, best.from);
  for (const SynthBaseline& b : baselines)
    if (b.stepNs && b.built)
      if (Order o = orderOfPlan(p, b.built->plan); !o.empty())
        starts.emplace_back(std::move(o), b.schedule + "'s order");
  Best replayed;
  for (auto& [order, from] : starts) {
    ListPass pass;
    replayOrder(p, order, work, pass);
    consider(std::move(order), std::move(pass), from, replayed);
  }
  if (!replayed.found) return;
  improveOrder(p, budget, work, replayed.order, replayed.pass);
  if (!best.found || !better(best.pass, replayed.pass)) best = std::move(replayed);
}

// Micro-batches are alike (synth takes no variable ones), so they are renumbered in the order
// stage 0 starts them: the search may have swapped two of them, torch reads 0, 1, 2, ...
void renumberMicrobatches(Plan& plan) {
  const int first = plan.placement[0][0].rank;
  std::vector<int> newId(static_cast<std::size_t>(plan.numMicrobatches()), -1);
  int next = 0;
  for (const Action& a : plan.programs[first])
    if (a.kind == OpKind::F && a.stage == 0) newId[a.microbatch] = next++;
  if (next != plan.numMicrobatches()) return;
  for (auto& program : plan.programs)
    for (Action& a : program)
      if (a.microbatch >= 0) a.microbatch = newId[a.microbatch];
}

Result<std::shared_ptr<const BuiltPlan>> planOf(const SynthProblem& p, const ListPass& pass) {
  auto built = std::make_shared<BuiltPlan>(*p.skeleton);
  built->plan.schedule = "synth";
  for (int r = 0; r < p.numRanks(); ++r) {
    auto& program = built->plan.programs[r];
    program.clear();
    for (std::int32_t op : pass.order[r])
      program.push_back(p.ops[op].action);
    program.insert(program.end(), p.tails[r].begin(), p.tails[r].end());
  }
  renumberMicrobatches(built->plan);
  auto graph = validatePlan(built->plan);
  if (!graph) return Error{"synth: the order found does not validate: " + graph.error()};
  built->graph = std::move(*graph);
  return std::shared_ptr<const BuiltPlan>(std::move(built));
}

}  // namespace

Status checkCapsCanFit(const SynthProblem& p) {
  std::vector<std::int64_t> least = p.baseBytes;
  for (const SynthOp& op : p.ops)  // one micro-batch's activations of each of the rank's stages
    if (op.action.kind == OpKind::F && op.action.microbatch == 0) least[op.rank] += op.allocBytes;
  for (int r = 0; r < p.numRanks(); ++r)
    if (least[r] > p.capBytes[r])
      return Error{"synth: rank " + std::to_string(r) + " needs at least " +
                   trace::formatBytes(least[r]) + " under any order (its weights and state, and " +
                   "one micro-batch's activations of each of its stages) but its cap is " +
                   trace::formatBytes(p.capBytes[r]) + ": no schedule exists; raise " +
                   "--rank-memory-gb or cut the model over more stages"};
  return {};
}

Result<SynthResult> synthesise(const SynthRequest& request, const SynthOptions& options,
                               const std::atomic<bool>* cancel) {
  const auto began = std::chrono::steady_clock::now();
  auto problem = synthProblem(request);
  if (!problem) return std::move(problem).takeError();
  PS_TRY(checkCapsCanFit(*problem));
  SynthResult out;
  out.capPerRank = problem->capBytes;
  out.baselines = simulateBaselines(request, *problem, cancel);
  std::mt19937_64 random(options.seed);
  SearchBudget budget;
  budget.maxPasses = options.maxPasses / 2;
  budget.patience = options.patience;
  budget.deadline = began + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(options.timeLimitS));
  budget.cancel = cancel;
  budget.random = &random;
  ListWorkspace work;
  Best best;
  searchKeys(*problem, out.baselines, budget, work, best);
  budget.maxPasses = options.maxPasses;
  searchOrders(*problem, out.baselines, budget, work, best);
  out.passes = budget.passes;
  out.stoppedByClock = budget.stoppedByClock;
  if (cancel && cancel->load()) return Error{"synth cancelled"};
  if (!best.found)
    return Error{
        "synth: no order fits the caps: every rule and generator order stalls with a "
        "rank at its cap (raise --rank-memory-gb)"};
  auto built = planOf(*problem, best.pass);
  if (!built) return std::move(built).takeError();
  bool overCap = false;
  auto sim = simulatePlan(**built, cancel, &overCap);
  if (!sim) return Error{"synth: simulating the order found: " + sim.error()};
  out.built = std::move(*built);
  out.stepNs = sim->makespan;
  out.peakPerRank = sim->peakMemory;
  out.startedFrom = best.from;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return out;
}

}  // namespace ps::runtime::synth
