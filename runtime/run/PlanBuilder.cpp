#include "runtime/run/PlanBuilder.h"

#include <cmath>

#include "runtime/cost/CostJson.h"
#include "runtime/cost/Partitioner.h"
#include "runtime/plan/TorchCsv.h"
#include "runtime/plan/Validator.h"
#include "runtime/run/DeviceFlags.h"
#include "runtime/run/DeviceMapping.h"
#include "runtime/run/GraphHalo.h"
#include "runtime/run/MappingSearch.h"
#include "runtime/run/PlanConfigJson.h"
#include "runtime/run/PlanSize.h"
#include "runtime/run/PlanVariants.h"
#include "runtime/schedules/BalanceActivations.h"
#include "runtime/schedules/FillFrozenWork.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/schedules/SplitBackward.h"
#include "runtime/sim/Simulator.h"
#include "trace/JsonWriter.h"
#include "trace/Units.h"

namespace ps::runtime {
namespace {

Result<Plan> basePlan(const PlanSpec& spec, std::vector<std::string>& notes,
                      SequencePlan& sequences) {
  if (!spec.scheduleFile.empty()) {
    if (spec.dataParallel != 1)
      return Error{"--dp: replicates a generated schedule; " + spec.scheduleFile +
                   " already lists every rank (write the replicas into the file)"};
    if (!spec.seqLengths.empty() || !spec.tokenSlices.empty())
      return Error{spec.scheduleFile +
                   ": --seq-lengths and --token-slices shape a generated "
                   "schedule's micro-batches, not a file's"};
    auto csv = readTorchCsv(spec.scheduleFile);
    if (!csv) return std::move(csv).takeError();
    for (const auto& n : csv->notes)
      notes.push_back(n);
    Plan plan = std::move(csv->plan);
    PS_TRY(checkPlanActions(plan, spec.steps, spec.scheduleFile));
    if (spec.stages && *spec.stages != plan.numRanks)
      return Error{spec.scheduleFile + ": the file has " + std::to_string(plan.numRanks) +
                   " ranks but --stages is " + std::to_string(*spec.stages)};
    if (spec.microbatches && *spec.microbatches != plan.numMicrobatches())
      return Error{spec.scheduleFile + ": the file has " + std::to_string(plan.numMicrobatches()) +
                   " micro-batches but --microbatches is " + std::to_string(*spec.microbatches)};
    return plan;
  }
  ScheduleParams params;
  params.ranks = spec.stages.value_or(4);
  params.microbatches = spec.microbatches.value_or(8);
  if (spec.dataParallel != 1) {  // each replica takes M / D of the micro-batches
    const std::string dp = "--dp " + std::to_string(spec.dataParallel) + ": ";
    if (spec.dataParallel < 1 || spec.dataParallel > 64)
      return Error{dp + "give 1..64 replicas of the pipeline"};
    if (params.microbatches % spec.dataParallel != 0)
      return Error{dp + "--microbatches " + std::to_string(params.microbatches) +
                   " does not share out evenly over " + std::to_string(spec.dataParallel) +
                   " replicas (give a multiple)"};
    params.microbatches /= spec.dataParallel;
  }
  params.chunks = spec.chunks;
  params.steps = spec.steps;
  if (!spec.stageGraph.empty()) return stageGraphPlan(spec, params);
  if (!spec.seqLengths.empty()) return variableMicrobatchPlan(spec, params, sequences);
  if (!spec.tokenSlices.empty()) return slicedPlan(spec, params, sequences);
  // A schedule with its own V (one chunk per rank, or ZB-V's two) would run with another V
  // than the one asked for, under the same knobs: say so instead. Asked of a 2-rank,
  // 4-micro-batch plan first, so that a refusal never waits for a large generation (ZB-V at
  // p = 1149 took 9 s to be refused).
  if (spec.chunks > 1) {
    ScheduleParams small = params;
    small.ranks = 2;
    small.microbatches = 4;
    small.steps = 1;
    auto probe = generateSchedule(spec.schedule, small);
    if (probe && probe->chunks != spec.chunks)
      return Error{"--chunks " + std::to_string(spec.chunks) + ": " + spec.schedule + " runs " +
                   std::to_string(probe->chunks) + " chunk(s) per rank, not " +
                   std::to_string(spec.chunks) + " (interleaved-1f1b and looped-bfs take V)"};
  }
  return generateSchedule(spec.schedule, params);
}

Result<CostModel> costModel(const PlanSpec& spec, int numStages) {
  if (spec.costs) {
    const std::string source = spec.costsFile.empty() ? "the embedded costs" : spec.costsFile;
    if (spec.layers && *spec.layers != static_cast<int>(spec.costs->layers.size()))
      return Error{source + ": describes " + std::to_string(spec.costs->layers.size()) +
                   " layers but --layers is " + std::to_string(*spec.layers)};
    return *spec.costs;
  }
  if (!spec.costsFile.empty()) {
    auto cost = loadCostJson(spec.costsFile);
    if (!cost) return cost;
    if (spec.layers && *spec.layers != static_cast<int>(cost->layers.size()))
      return Error{spec.costsFile + ": describes " + std::to_string(cost->layers.size()) +
                   " layers but --layers is " + std::to_string(*spec.layers)};
    return cost;
  }
  UniformCostFlags flags = spec.uniform;
  flags.layers = spec.layers.value_or(numStages);
  return uniformCostModel(flags);
}

// The partitioner's request for the stages of replica `replica` (their ranks' speeds and
// memory), under --partition and --time-slack.
Result<PartitionRequest> partitionRequest(const PlanSpec& spec, const Plan& plan, int replica) {
  PartitionRequest request;
  request.numStages = plan.numStages;
  for (const auto& st : plan.placement[replica])
    request.stageRank.push_back(st.rank);
  // Activations weigh by how many micro-batches each stage holds at its peak under this
  // schedule (1F1B's stage 0 holds p of them), so that a partition it returns fits.
  request.inFlight = peakActivationsInFlight(plan);
  if (spec.partition == "memory") {
    request.objective = PartitionObjective::Memory;
    request.timeSlack = spec.timeSlack;
  } else if (!spec.partition.empty() && spec.partition != "time") {
    return Error{"--partition " + spec.partition + ": expected time or memory"};
  }
  if (!(spec.timeSlack >= 0 && spec.timeSlack <= 10))
    return Error{"--time-slack " + formatNumber(spec.timeSlack) +
                 ": expected 0..10 (a fraction "
                 "of the time-balanced cut's slowest stage)"};
  return request;
}

// --own-cuts (HetPipe): the replicas after the first cut for their own ranks.
Status cutEachReplica(const PlanSpec& spec, Plan& plan, const CostModel& cost) {
  if (spec.dataParallel < 2 || plan.numReplicas() < 2)
    return Error{"--own-cuts: cuts each --dp replica for its own ranks; give --dp 2 or more"};
  const int L = static_cast<int>(cost.layers.size());
  for (int k = 1; k < plan.numReplicas(); ++k) {
    auto request = partitionRequest(spec, plan, k);
    if (!request) return std::move(request).takeError();
    auto partition = partitionLayers(cost, *request);
    if (!partition) return std::move(partition).takeError();
    const std::vector<int>& b = partition->boundaries;
    auto& stages = plan.placement[static_cast<std::size_t>(k)];
    for (std::size_t s = 0; s < stages.size(); ++s) {
      stages[s].firstLayer = s == 0 ? 0 : b[s - 1];
      stages[s].lastLayer = (s < b.size() ? b[s] : L) - 1;
    }
  }
  return {};
}

Status placeLayers(const PlanSpec& spec, Plan& plan, const CostModel& cost) {
  const int L = static_cast<int>(cost.layers.size());
  if (L < plan.numStages)
    return Error{"--layers: the model has " + std::to_string(L) +
                 " layers, fewer than the plan's " + std::to_string(plan.numStages) + " stages"};
  if (!spec.boundaries.empty()) {
    auto b = parseBoundaries(spec.boundaries, L, plan.numStages);
    if (!b) return std::move(b).takeError();
    PS_TRY(assignLayers(plan, *b, L));
  } else {
    auto request = partitionRequest(spec, plan, 0);
    if (!request) return std::move(request).takeError();
    auto partition = partitionLayers(cost, *request);
    if (!partition) return std::move(partition).takeError();
    PS_TRY(assignLayers(plan, partition->boundaries, L));
  }
  return spec.ownCuts ? cutEachReplica(spec, plan, cost) : Status{};
}

// --eager-sync: only where stages have twins, and with the optimizer step's barrier (each
// exchange needs both twins' backward ops of the step, which the barrier orders before the OPT).
Status syncEagerly(const PlanSpec& spec, Plan& plan) {
  if (plan.numReplicas() < 2)
    return Error{
        "--eager-sync: exchanges the gradients of replicated stages (chimera, bitpipe, "
        "--dp); " +
        spec.schedule + " has one replica of each stage"};
  if (plan.optimizerSync != OptimizerSync::Barrier)
    return Error{
        "--eager-sync: needs --optimizer-sync barrier (an exchange waits for both "
        "twins' backward ops of the step)"};
  plan.eagerGradientSync = true;
  return {};
}

// --staleness D: HetPipe's virtual workers are --dp replicas of a synchronous pipeline, each
// exchanging its own updates (not with eager sync, which exchanges gradients within the step).
Status syncInWaves(const PlanSpec& spec, Plan& plan) {
  const std::string flag = "--staleness " + std::to_string(spec.staleness) + ": ";
  if (spec.dataParallel < 2 || plan.numReplicas() < 2)
    return Error{flag +
                 "HetPipe's virtual workers are data-parallel replicas of the pipeline; "
                 "give --dp 2 or more"};
  if (spec.eagerSync)
    return Error{flag +
                 "not with --eager-sync (the replicas exchange updates, D steps late, "
                 "instead of each step's gradients)"};
  if (plan.forwardOnly || plan.versioning != WeightVersioning::Synchronous)
    return Error{flag + "needs a synchronous training schedule (" + plan.schedule +
                 " has no optimizer step per replica step)"};
  plan.waveStaleness = spec.staleness;
  return {};
}

struct FinishedPlan {
  Plan plan;
  OpGraph graph;
};

// Places the plan on its devices, its layers on its stages, repeats its steps and validates.
Result<FinishedPlan> finishPlan(const PlanSpec& spec, const Plan& generated, const CostModel& cost,
                                const std::vector<int>& deviceOf) {
  Result<Plan> plan = placeOnDevices(generated, deviceOf);
  PS_TRY(placeLayers(spec, *plan, cost));
  if (spec.recompute) addRecompute(*plan);
  if (spec.balanceActivations) PS_TRY(balanceActivations(*plan, cost));
  if (plan->steps == 1 && plan->versioning == WeightVersioning::Synchronous) {
    plan = repeatSteps(std::move(*plan), spec.steps, spec.optimizerSync);
    if (!plan) return std::move(plan).takeError();
  }
  if (spec.eagerSync) PS_TRY(syncEagerly(spec, *plan));
  if (spec.staleness > 0) PS_TRY(syncInWaves(spec, *plan));
  if (spec.historyRefresh > 0) {
    if (plan->forwardOnly || plan->versioning != WeightVersioning::Synchronous)
      return Error{"--history-refresh " + std::to_string(spec.historyRefresh) +
                   ": the refresh runs between steps of a synchronous training schedule (not " +
                   plan->schedule + ")"};
    plan->historyRefresh = spec.historyRefresh;
  }
  if (spec.clusterKeys && spec.fetchMb <= 0)
    return Error{
        "--cluster-keys regroups each step's samples by their embedding keys: give "
        "--fetch-mb for the table"};
  plan->clusterKeys = spec.clusterKeys;
  if (spec.frozenUs > 0)
    PS_TRY(fillFrozenWork(*plan, cost,
                          spec.fill == "before" ? FillPlacement::Before : FillPlacement::Bubbles));
  auto graph = validatePlan(*plan);
  if (!graph) return std::move(graph).takeError();
  return FinishedPlan{std::move(*plan), std::move(*graph)};
}

// --mapping: empty = rank order, a device list, or "auto" (searched by simulated step time).
Result<std::vector<int>> deviceMapping(const PlanSpec& spec, const Plan& generated,
                                       const CostModel& cost, std::vector<std::string>& notes,
                                       const std::atomic<bool>* cancel) {
  if (spec.mapping.empty() || spec.mapping == "rank") return std::vector<int>{};
  if (spec.mapping != "auto") return parseDeviceOrder(spec.mapping, generated.numRanks);
  const MappingCost stepTime = [&](const std::vector<int>& deviceOf) -> Result<std::int64_t> {
    auto finished = finishPlan(spec, generated, cost, deviceOf);
    if (!finished) return std::move(finished).takeError();
    auto sim = simulate(finished->plan, finished->graph, cost, cancel);
    if (!sim) return std::move(sim).takeError();
    PS_TRY(checkMemoryCaps(cost, sim->peakMemory));
    return sim->makespan;
  };
  auto found = searchDeviceMapping(generated.numRanks, cost.topology.sizes(generated.numRanks),
                                   stepTime, cancel);
  if (!found) return Error{"--mapping auto: " + found.error()};
  notes.push_back("--mapping auto: devices " + deviceOrderText(found->deviceOf) + " (" +
                  trace::formatDuration(found->stepNs) + " a step, against " +
                  trace::formatDuration(found->rankOrderNs) + " in rank order; " +
                  std::to_string(found->evaluated) + " mappings simulated)");
  return found->deviceOf;
}

}  // namespace

void addRecompute(Plan& plan) {
  plan.recompute = true;
  for (auto& program : plan.programs) {
    std::vector<Action> out;
    out.reserve(program.size() * 4 / 3 + 1);
    for (const Action& a : program) {
      // B, or I for split backward: the first backward op of (stage, micro-batch) on its rank.
      if (a.kind == OpKind::B || a.kind == OpKind::I) {
        Action r = a;
        r.kind = OpKind::R;
        r.overlapNext = false;
        // Never split an overlapped pair: recompute before the pair instead.
        if (!out.empty() && out.back().overlapNext)
          out.insert(out.end() - 1, r);
        else
          out.push_back(r);
      }
      out.push_back(a);
    }
    program = std::move(out);
  }
}

std::string optimizerSyncName(OptimizerSync sync) {
  return sync == OptimizerSync::Barrier ? "barrier" : "none";
}

std::optional<OptimizerSync> parseOptimizerSync(const std::string& name) {
  if (name == "barrier") return OptimizerSync::Barrier;
  if (name == "none") return OptimizerSync::None;
  return std::nullopt;
}

Result<BuiltPlan> buildPlan(const PlanSpec& spec, const std::atomic<bool>* cancel) {
  if (spec.steps <= 0)
    return Error{"--steps must be positive (got " + std::to_string(spec.steps) + ")"};
  PS_TRY(checkPlanSize(spec));
  BuiltPlan built;
  auto plan = basePlan(spec, built.notes, built.sequences);
  if (!plan) return std::move(plan).takeError();
  PS_TRY(applyWeightVersions(spec, *plan));
  if (spec.forwardOnly) PS_TRY(keepForwardsOnly(spec, *plan));
  if (spec.maxDeferredW != 0 && !spec.splitBackward)
    return Error{"--max-deferred-w " + std::to_string(spec.maxDeferredW) +
                 ": bounds the W that --split-backward defers (give --split-backward too)"};
  if (spec.splitBackward) {
    auto split = splitBackwardIntoBubbles(*plan, spec.maxDeferredW);
    if (!split) return std::move(split).takeError();
    plan = std::move(split);
  }
  if (spec.balanceActivations && spec.dataParallel > 1)
    return Error{"--balance-activations with --dp " + std::to_string(spec.dataParallel) +
                 ": BPipe pairs the ranks of one pipeline; replicated pipelines are not balanced "
                 "yet (drop one of the two)"};
  if (spec.dataParallel > 1) {
    plan = replicatePipeline(*plan, spec.dataParallel);
    if (!plan) return std::move(plan).takeError();
  }
  auto cost = costModel(spec, plan->numStages);
  if (!cost) return std::move(cost).takeError();
  PS_TRY(applyRankFlags(spec, plan->numRanks, *cost));
  PS_TRY(applyTopology(spec, plan->numRanks, *cost));
  // Inference keeps the weights only: no gradients, no optimizer state.
  if (spec.forwardOnly) cost->stateBytesPerParamByte = 1.0;
  PS_TRY(addCommLaneWork(spec, *plan, *cost));
  PS_TRY(applyGraphNodes(spec, *plan, *cost, built.notes));
  PS_TRY(checkFrozenFlags(spec));
  cost->frozenFwdNs = spec.frozenUs * 1e3;
  // The config keeps the model's layers (a rerun cuts them into operators again).
  auto opCost = spec.operators == 1 ? cost : operatorCosts(*cost, spec.operators);
  if (!opCost) return std::move(opCost).takeError();
  auto deviceOf = deviceMapping(spec, *plan, *opCost, built.notes, cancel);
  if (!deviceOf) return std::move(deviceOf).takeError();
  auto finished = finishPlan(spec, *plan, *opCost, *deviceOf);
  if (!finished) return std::move(finished).takeError();
  finished->plan.operatorsPerLayer = spec.operators;
  if (spec.historyRefresh > 0)
    built.notes.push_back("--history-refresh " + std::to_string(spec.historyRefresh) +
                          ": the cpu backend's gnn model refreshes its history before every " +
                          "such step; the simulator does not time that pass");
  if (spec.clusterKeys)
    built.notes.push_back(
        "--cluster-keys: the cpu backend's gathers move each micro-batch's "
        "distinct rows; the simulator's stay --fetch-mb each");
  built.configJson = planConfigJson(spec, finished->plan, *cost, *deviceOf);
  built.plan = std::move(finished->plan);
  built.cost = std::move(*opCost);
  built.graph = std::move(finished->graph);
  built.deviceOrder = std::move(*deviceOf);
  return built;
}

std::string planRunName(const Plan& plan) {
  // Replicas on ranks of their own are data-parallel groups (--dp) of P ranks each; the
  // bidirectional schedules' replicas share their ranks (Chimera, BitPipe).
  int groups = std::max(plan.numReplicas(), 1);
  std::vector<bool> firstHolds(static_cast<std::size_t>(std::max(plan.numRanks, 0)), false);
  if (groups > 1)
    for (const StagePlacement& st : plan.placement[0])
      firstHolds[static_cast<std::size_t>(st.rank)] = true;
  for (int k = 1; k < plan.numReplicas(); ++k)
    for (const StagePlacement& st : plan.placement[k])
      if (firstHolds[static_cast<std::size_t>(st.rank)]) groups = 1;
  // TeraPipe's slices are the micro-batches pipelined, but M counts the sequences: "m=1x25".
  int sequences = 0;
  for (const MicrobatchSpec& mb : plan.microbatches)
    sequences += mb.sliceOf < 0 ? 1 : 0;
  std::string m = std::to_string(plan.numMicrobatches());
  if (sequences < plan.numMicrobatches())
    m = std::to_string(sequences) + "x" + std::to_string(plan.numMicrobatches() / sequences);
  std::string name = plan.schedule + " p=" + std::to_string(plan.numRanks / groups) + " m=" + m;
  if (plan.chunks > 1) name += " v=" + std::to_string(plan.chunks);
  if (groups > 1) name += " dp=" + std::to_string(groups);
  if (plan.waveStaleness >= 0) name += " staleness=" + std::to_string(plan.waveStaleness);
  if (plan.historyRefresh > 0) name += " refresh=" + std::to_string(plan.historyRefresh);
  if (plan.steps > 1) name += " steps=" + std::to_string(plan.steps);
  return name;
}

Status checkMemoryCaps(const CostModel& cost, const std::vector<std::int64_t>& peakPerRank) {
  for (std::size_t r = 0; r < peakPerRank.size(); ++r) {
    const auto cap = cost.capacityOf(static_cast<int>(r));
    if (cap && peakPerRank[r] > *cap)
      return Error{"rank " + std::to_string(r) + " needs " + trace::formatBytes(peakPerRank[r]) +
                   " but its memory capacity is " + trace::formatBytes(*cap) + " (over by " +
                   trace::formatBytes(peakPerRank[r] - *cap) + ")"};
  }
  return {};
}

}  // namespace ps::runtime
