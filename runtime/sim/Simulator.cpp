#include "runtime/sim/Simulator.h"

#include <algorithm>
#include <cmath>

#include "runtime/sim/EventSimulation.h"
#include "runtime/sim/OpCosts.h"
#include "runtime/sim/ReplaySimulation.h"

namespace ps::runtime {
namespace {

const StagePlacement& placementOf(const Plan& plan, int stage, int microbatch) {
  const int replica = microbatch >= 0 ? plan.replicaOf(microbatch) : 0;
  return plan.placement[replica][stage];
}

// The engines run a replicated plan's OPT for the all-reduce and the update together (OpCosts):
// each becomes an AR record over the exchange, then the OPT over the rest.
void splitAllReduce(const Plan& plan, const CostModel& cost, SimResult& result) {
  // Eager sync wrote its own AR records, one per exchange (EagerSync.h).
  if (plan.numReplicas() < 2 || plan.eagerGradientSync || plan.waveStaleness >= 0) return;
  const std::int64_t ar = sim::replicaAllReduceNs(plan, cost);
  const std::size_t n = result.records.size();
  for (std::size_t i = 0; i < n; ++i) {
    SimRecord& opt = result.records[i];
    if (opt.kind != OpKind::OPT) continue;
    SimRecord reduce = opt;
    reduce.kind = OpKind::AR;
    reduce.end_ns = opt.start_ns + ar;
    reduce.peer_rank = sim::replicaTwinOf(plan, opt.rank);
    opt.start_ns = reduce.end_ns;
    result.records.push_back(reduce);
  }
}

}  // namespace

trace::OpRecord toOpRecord(const SimRecord& r) {
  trace::OpRecord op;
  op.rank = r.rank;
  op.kind = r.kind;
  if (r.stage >= 0) op.stage = r.stage;
  if (r.microbatch >= 0) op.microbatch = r.microbatch;
  op.step = r.step;
  op.start_ns = r.start_ns;
  op.end_ns = r.end_ns;
  if (r.peer_rank >= 0) op.peer_rank = r.peer_rank;
  if (r.bytes >= 0) op.bytes = r.bytes;
  if (r.fetchStage >= 0) op.name = std::string(fetchStageName(r.fetchStage));
  return op;
}

std::string_view fetchStageName(int stage) {
  static constexpr std::string_view kNames[kFetchStages] = {"prefetch", "H2D", "key routing",
                                                            "lookup"};
  return stage >= 0 && stage < kFetchStages ? kNames[stage] : "fetch";
}

SimRecord sendRecord(const SimResult& result, const SimTransfer& t) {
  const SimRecord& p = result.records[static_cast<std::size_t>(t.producer)];
  return {t.start_ns,   t.send_end_ns, t.bytes,    p.rank, p.stage,
          p.microbatch, p.step,        t.dst_rank, t.kind};
}

SimRecord recvRecord(const SimResult& result, const SimTransfer& t) {
  const SimRecord& p = result.records[static_cast<std::size_t>(t.producer)];
  const OpKind recv = t.kind == OpKind::SEND_F ? OpKind::RECV_F : OpKind::RECV_B;
  return {t.start_ns,   t.arrival_ns, t.bytes, t.dst_rank, t.consumer_stage,
          p.microbatch, p.step,       p.rank,  recv};
}

std::vector<SimRecord> allRecords(const SimResult& result) {
  std::vector<SimRecord> out;
  out.reserve(result.records.size() + 2 * result.transfers.size());
  out.insert(out.end(), result.records.begin(), result.records.end());
  for (const auto& t : result.transfers) {
    out.push_back(sendRecord(result, t));
    out.push_back(recvRecord(result, t));
  }
  return out;
}

std::int64_t opDurationNs(const Plan& plan, const CostModel& cost, const Action& a, int rank) {
  const double speed = cost.speedOf(rank);
  if (a.kind == OpKind::OPT) {
    std::int64_t params = 0;
    for (const auto& replica : plan.placement)
      for (const auto& st : replica)
        if (st.rank == rank)
          for (int l = st.firstLayer; l <= st.lastLayer; ++l)
            params += cost.layers[l].paramBytes;
    return sim::roundNs(cost.optimizerNsPerParamByte * static_cast<double>(params) / speed);
  }
  if (a.stage < 0) return 0;  // FILL without a stage: no model cost
  const double scale = a.microbatch >= 0 ? plan.microbatches[a.microbatch].costScale : 1.0;
  // DiffusionPipe's FILL: the frozen part's forward, on whichever rank runs it.
  if (a.kind == OpKind::FILL && cost.frozenFwdNs > 0)
    return sim::roundNs(cost.frozenFwdNs * scale / speed);
  const StagePlacement& st = placementOf(plan, a.stage, a.microbatch);
  double ns = 0;
  for (int l = st.firstLayer; l <= st.lastLayer; ++l) {
    const LayerCost& c = cost.layers[l];
    switch (a.kind) {
      case OpKind::F:
      case OpKind::R:
      case OpKind::FILL:
        ns += c.fwdNs;
        break;
      case OpKind::B:
        ns += c.inputGradNs + c.weightGradNs;
        break;
      case OpKind::I:
        ns += c.inputGradNs;
        break;
      case OpKind::W:
        ns += c.weightGradNs;
        break;
      default:
        break;
    }
  }
  return sim::roundNs(ns * scale / speed);
}

std::int64_t activationBytes(const Plan& plan, const CostModel& cost, int stage) {
  const StagePlacement& st = plan.placement[0][stage];
  std::int64_t bytes = 0;
  for (int l = st.firstLayer; l <= st.lastLayer; ++l)
    bytes += cost.layers[l].actBytes;
  return bytes;
}

std::int64_t boundaryBytes(const Plan& plan, const CostModel& cost, int stage) {
  const LayerCost& last = cost.layers[plan.placement[0][stage].lastLayer];
  return last.outputBytes > 0 ? last.outputBytes : last.actBytes;
}

Result<SimResult> simulate(const Plan& plan, const OpGraph& graph, const CostModel& cost,
                           const std::atomic<bool>* cancel) {
  if (static_cast<int>(cost.layers.size()) < plan.numLayers)
    return Error{"the cost model has " + std::to_string(cost.layers.size()) +
                 " layers but the plan has " + std::to_string(plan.numLayers)};
  for (const auto& replica : plan.placement)
    for (std::size_t s = 0; s < replica.size(); ++s)
      if (replica[s].firstLayer < 0 || replica[s].lastLayer < replica[s].firstLayer ||
          replica[s].lastLayer >= static_cast<int>(cost.layers.size()))
        return Error{"stage " + std::to_string(s) + " has layer range " +
                     std::to_string(replica[s].firstLayer) + ".." +
                     std::to_string(replica[s].lastLayer) + " outside the model's " +
                     std::to_string(cost.layers.size()) + " layers"};
  // Whatever built the model (flags, a file, calibration, a caller's own), its numbers must keep
  // the sums below exact.
  PS_TRY(checkCostRanges(cost, "the cost model"));
  // Free links: no transfer waits for another, and the event-free replay gives the same times.
  // Activation moves (BPipe) are events of their own, which only the event engine has.
  // So are Piper's all-to-alls and NestPipe's fetches, on the ranks' communication lanes.
  const bool replay = sim::allLinksFree(cost) && plan.activationMoves.empty() &&
                      plan.expertAllToAll.bytes == 0 && plan.embeddingFetch.bytes == 0;
  auto result = replay ? sim::ReplaySimulation(plan, graph, cost, cancel).run()
                       : sim::EventSimulation(plan, graph, cost, cancel).run();
  if (result) splitAllReduce(plan, cost, *result);
  return result;
}

}  // namespace ps::runtime
