// EventSimulation's communication lane: Piper's expert all-to-alls and NestPipe's embedding
// fetches (Plan::expertAllToAll, Plan::embeddingFetch). Each rank's lane runs one collective at a
// time, first come, first served; its copies take the links like any transfer.

#include <algorithm>
#include <set>
#include <string>

#include "runtime/sim/EventSimulation.h"

namespace ps::runtime::sim {

void EventSimulation::setUpComm() {
  if (!hasComm()) return;
  const auto ranks = static_cast<std::size_t>(p_.numRanks);
  commFree_.assign(ranks, 0);
  const auto S = static_cast<std::size_t>(p_.numStages);
  stagePeers_.assign(static_cast<std::size_t>(p_.numReplicas()) * S, {});
  pipelineRanks_.assign(static_cast<std::size_t>(p_.numReplicas()), {});
  for (int k = 0; k < p_.numReplicas(); ++k) {
    std::set<int> own;
    for (std::size_t s = 0; s < S; ++s) {
      own.insert(p_.placement[k][s].rank);
      for (int j = 0; j < p_.numReplicas(); ++j) {
        const int twin = p_.placement[j][s].rank;
        if (twin != p_.placement[k][s].rank) stagePeers_[k * S + s].push_back(twin);
      }
    }
    pipelineRanks_[k].assign(own.begin(), own.end());
  }
  if (p_.embeddingFetch.bytes <= 0) return;
  fetchNodes_.assign(ranks, {});
  fetchIndexOf_.assign(g_.size(), -1);
  fetchesIssued_.assign(ranks, 0);
  fetchStageFree_.assign(ranks * kFetchStages, 0);
  // Synchronous training plans update the rows once a step, every rank at its OPT; other plans
  // fetch as soon as a buffer is free.
  if (p_.embeddingFetch.overlap && !p_.forwardOnly &&
      p_.versioning == WeightVersioning::Synchronous) {
    updatedAt_.assign(static_cast<std::size_t>(p_.steps), -1);
    updatesDone_.assign(static_cast<std::size_t>(p_.steps), 0);
    waitingForRows_.assign(static_cast<std::size_t>(p_.steps), {});
  }
  for (int r = 0; r < p_.numRanks; ++r)
    for (std::size_t h = 0; h < g_.rankSize(r); ++h) {
      const std::int32_t node = g_.rankNode(r, h);
      const Action& a = g_.actions[node];
      if (a.kind != OpKind::F || a.stage != 0) continue;
      fetchIndexOf_[static_cast<std::size_t>(node)] =
          static_cast<std::int32_t>(fetchNodes_[static_cast<std::size_t>(r)].size());
      fetchNodes_[static_cast<std::size_t>(r)].push_back(node);
      if (p_.embeddingFetch.overlap) ++node_[static_cast<std::size_t>(node)].pending;
    }
  if (p_.embeddingFetch.overlap)
    for (int r = 0; r < p_.numRanks; ++r)
      issueFetches(r, -1, 0);
}

std::int64_t EventSimulation::allToAllAfter(std::int32_t node, int r, std::int64_t t) {
  const Action& a = g_.actions[node];
  const auto S = static_cast<std::size_t>(p_.numStages);
  const auto& peers = stagePeers_[static_cast<std::size_t>(p_.replicaOf(a.microbatch)) * S +
                                  static_cast<std::size_t>(a.stage)];
  if (peers.empty()) return t;
  // Each rank keeps its own experts' share of the tokens and sends one share to each twin.
  const std::int64_t share = p_.expertAllToAll.bytes / static_cast<std::int64_t>(peers.size() + 1);
  const std::int64_t start = std::max(t, commFree_[static_cast<std::size_t>(r)]);
  std::int64_t end = start;
  for (int q : peers) {
    const auto [s, e] = copy(r, q, share, start, "the all-to-all after " + actionLabel(a));
    out_.records.push_back({s, e, share, r, a.stage, a.microbatch, a.step, q, OpKind::A2A});
    end = std::max(end, e);
  }
  commFree_[static_cast<std::size_t>(r)] = end;
  out_.makespan = std::max(out_.makespan, end);
  return end;
}

std::int64_t EventSimulation::fetchStages(std::int32_t node, int r, std::int64_t t,
                                          std::size_t from, std::size_t to) {
  const Action& a = g_.actions[node];
  // NestPipe's stages before the gather, each a lane of the rank: micro-batch j's lookup can run
  // while j − 1 is in its gather and j + 1 in its host-to-device copy.
  const auto& stageNs = p_.embeddingFetch.stageNs;
  for (std::size_t k = from; k < to && k < stageNs.size(); ++k) {
    std::int64_t& free = fetchStageFree_[static_cast<std::size_t>(r) * kFetchStages + k];
    const std::int64_t s = std::max(t, free);
    t = free = s + stageNs[k];
    // On the rank's collective lane beside its gathers (A2A, named after the stage): the
    // timeline's compute rows are for compute, and the critical path walks collectives.
    out_.records.push_back(
        {s, t, -1, r, a.stage, a.microbatch, a.step, -1, OpKind::A2A, static_cast<std::int8_t>(k)});
  }
  return t;
}

std::int64_t EventSimulation::fetch(std::int32_t node, int r, std::int64_t t) {
  return gather(node, r, fetchStages(node, r, t, 0, kFetchStages));
}

std::int64_t EventSimulation::gather(std::int32_t node, int r, std::int64_t t) {
  const Action& a = g_.actions[node];
  const auto& ranks = pipelineRanks_[static_cast<std::size_t>(p_.replicaOf(a.microbatch))];
  const std::int64_t share =
      p_.embeddingFetch.bytes / static_cast<std::int64_t>(std::max<std::size_t>(ranks.size(), 1));
  const std::int64_t start = std::max(t, commFree_[static_cast<std::size_t>(r)]);
  std::int64_t end = start, gathered = 0;
  for (int q : ranks) {
    if (q == r) continue;  // its own shard is local
    const auto [s, e] = copy(q, r, share, start, "the embedding fetch for " + actionLabel(a));
    // On the shard's rank, towards r: what the link views count.
    out_.records.push_back({s, e, share, q, a.stage, a.microbatch, a.step, r, OpKind::A2A});
    end = std::max(end, e);
    gathered += share;
  }
  // On r itself, the whole gather (no peer: its bytes are counted on the senders' side).
  out_.records.push_back({start, end, gathered, r, a.stage, a.microbatch, a.step, -1, OpKind::A2A});
  commFree_[static_cast<std::size_t>(r)] = end;
  out_.makespan = std::max(out_.makespan, end);
  return end;
}

void EventSimulation::issueFetches(int r, int done, std::int64_t t) {
  const auto& nodes = fetchNodes_[static_cast<std::size_t>(r)];
  auto& issued = fetchesIssued_[static_cast<std::size_t>(r)];
  // ahead + 1 buffers: with the done-th F's freed, fetches up to done + 1 + ahead may run.
  const auto limit = std::min<std::int64_t>(static_cast<std::int64_t>(nodes.size()),
                                            std::int64_t{done} + 2 + p_.embeddingFetch.ahead);
  const auto n = static_cast<std::int32_t>(g_.size());
  const auto firstFetchId = n + 2 * static_cast<std::int32_t>(moves_.size());
  for (; issued < limit; ++issued) {
    const std::int32_t node = nodes[static_cast<std::size_t>(issued)];
    // Staleness-free (NestPipe's dual-buffer synchronisation): the keys may be prefetched,
    // copied and routed ahead, but a step's lookup reads the rows the last step updated.
    const int step = updatedAt_.empty() ? 0 : g_.actions[node].step;
    const std::int64_t routed = fetchStages(node, r, t, 0, kLookupStage);
    if (step == 0 || updatedAt_[static_cast<std::size_t>(step - 1)] >= 0) {
      const std::int64_t rows = step == 0 ? 0 : updatedAt_[static_cast<std::size_t>(step - 1)];
      push(
          gather(node, r, fetchStages(node, r, std::max(routed, rows), kLookupStage, kFetchStages)),
          firstFetchId + node);
    } else {
      waitingForRows_[static_cast<std::size_t>(step - 1)].push_back({node, r, routed});
    }
  }
}

void EventSimulation::rowsUpdated(int step, std::int64_t t) {
  if (updatedAt_.empty() || ++updatesDone_[static_cast<std::size_t>(step)] < p_.numRanks) return;
  updatedAt_[static_cast<std::size_t>(step)] = t;  // events run in time order: the last one
  const auto firstFetchId =
      static_cast<std::int32_t>(g_.size()) + 2 * static_cast<std::int32_t>(moves_.size());
  for (const auto& w : waitingForRows_[static_cast<std::size_t>(step)])
    push(gather(w.node, w.rank,
                fetchStages(w.node, w.rank, std::max(w.routed, t), kLookupStage, kFetchStages)),
         firstFetchId + w.node);
  waitingForRows_[static_cast<std::size_t>(step)].clear();
}

void EventSimulation::fetchArrived(std::int32_t node, std::int64_t t) {
  NodeState& f = node_[static_cast<std::size_t>(node)];
  f.readyAt = std::max(f.readyAt, t);
  if (--f.pending == 0 || (hasOverlap_ && f.pending == 1)) tryStart(f.rank());
}

}  // namespace ps::runtime::sim
