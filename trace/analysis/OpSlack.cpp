#include "trace/analysis/OpSlack.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

namespace ps::trace {
namespace {

constexpr std::int32_t kNoNode = -1;
constexpr std::array<Lane, 4> kLanes = {Lane::Compute, Lane::Send, Lane::Recv, Lane::Collective};

// The step graph's ops (compute, sends, receives of the compute steps) as dense node ids.
class SlackGraph {
 public:
  explicit SlackGraph(const StepGraph& graph) : graph_(graph), run_(graph.run()) {
    for (std::size_t r = 0; r < run_.ranks.size(); ++r)
      for (Lane lane : kLanes) {
        const OpColumns& c = run_.ranks[r].lane(lane);
        base_[r][laneSlot(lane)] = static_cast<std::int32_t>(refs_.size());
        for (std::size_t i = 0; i < c.size(); ++i) {
          refs_.push_back({static_cast<int>(r), lane, i});
          start_.push_back(c.start[i]);
          end_.push_back(c.end[i]);
          const auto k = graph.stepIndex(c.step[i]);
          stepEnd_.push_back(k ? graph.extent(*k).end : kUnset);
        }
      }
    addBarriers();
    partner_.assign(refs_.size(), kNoNode);
    buildEdges();
  }

  OpSlackTable solve() const;

 private:
  static constexpr std::int64_t kUnset = std::numeric_limits<std::int64_t>::min();
  static int laneSlot(Lane lane) {
    return lane == Lane::Compute ? 0 : lane == Lane::Send ? 1 : lane == Lane::Recv ? 2 : 3;
  }
  std::int32_t node(const OpRef& ref) const {
    if (ref.lane == Lane::Other) return kNoNode;
    return base_.at(ref.rank)[laneSlot(ref.lane)] + static_cast<std::int32_t>(ref.index);
  }
  std::int64_t start(std::int32_t n) const { return start_[n]; }
  std::int64_t end(std::int32_t n) const { return end_[n]; }
  bool isBarrier(std::int32_t n) const { return !refs_[n].valid(); }
  void addEdge(std::int32_t from, std::int32_t to) {
    if (from != kNoNode && to != kNoNode && from != to) edges_.emplace_back(from, to);
  }
  void addBarriers();
  void buildEdges();
  void addRankOrder(int rank, std::size_t k);
  void addCollectiveEdges(int rank);
  std::vector<std::int32_t> reverseTopologicalOrder(
      const std::vector<std::int32_t>& succBegin) const;

  const StepGraph& graph_;
  const RunTrace& run_;
  std::vector<OpRef> refs_;
  std::vector<std::int64_t> start_, end_;
  std::vector<std::int64_t> stepEnd_;  // the op's step's end (kUnset: not a compute step's op)
  std::vector<std::array<std::int32_t, 4>> base_ =
      std::vector<std::array<std::int32_t, 4>>(run_.ranks.size());
  std::vector<std::int32_t> barrierOf_;  // per step index: the node every gradient op reaches
  std::vector<std::pair<std::int32_t, std::int32_t>> edges_;  // (predecessor, successor)
  std::vector<std::int32_t> partner_;  // the op a compute op starts together with (a unit)
};

// Per step, a node of no duration at the end of its last gradient op (B or W): what an
// all-reduce of the step waits for (the optimizer barrier, every rank's gradients).
void SlackGraph::addBarriers() {
  for (std::size_t k = 0; k < graph_.steps().size(); ++k) {
    std::int64_t at = kUnset;
    for (std::size_t r = 0; r < run_.ranks.size(); ++r) {
      const OpColumns& c = run_.ranks[r].lane(Lane::Compute);
      for (std::size_t i : graph_.ops(static_cast<int>(r), k))
        if (c.kind[i] == OpKind::B || c.kind[i] == OpKind::W) at = std::max(at, c.end[i]);
    }
    barrierOf_.push_back(at == kUnset ? kNoNode : static_cast<std::int32_t>(refs_.size()));
    if (at == kUnset) continue;
    refs_.push_back({});  // no op: a barrier
    start_.push_back(at);
    end_.push_back(at);
    stepEnd_.push_back(graph_.extent(k).end);
  }
}

void SlackGraph::buildEdges() {
  const RelationIndex& relations = graph_.relations();
  for (std::int32_t n = 0; n < static_cast<std::int32_t>(refs_.size()); ++n) {
    if (stepEnd_[n] == kUnset || isBarrier(n)) continue;
    for (const OpRef& in : relations.inputs(refs_[n]))
      addEdge(node(in), n);
  }
  for (std::size_t r = 0; r < run_.ranks.size(); ++r) {
    const OpColumns& c = run_.ranks[r].lane(Lane::Compute);
    for (std::size_t k = 0; k < graph_.steps().size(); ++k) {
      addRankOrder(static_cast<int>(r), k);
      for (std::size_t i : graph_.ops(static_cast<int>(r), k))
        if (c.kind[i] == OpKind::B || c.kind[i] == OpKind::W)
          addEdge(node({static_cast<int>(r), Lane::Compute, i}), barrierOf_[k]);
    }
    addCollectiveEdges(static_cast<int>(r));
  }
}

// A collective (all-reduce, all-to-all, fetch, offload) runs after the compute op of its rank
// that ended last before it, an all-reduce also after the step's gradients; the rank's next
// compute op runs after it.
void SlackGraph::addCollectiveEdges(int rank) {
  const OpColumns& c = run_.ranks[rank].lane(Lane::Collective);
  const OpColumns& compute = run_.ranks[rank].lane(Lane::Compute);
  for (std::size_t i = 0; i < c.size(); ++i) {
    const std::int32_t n = node({rank, Lane::Collective, i});
    if (stepEnd_[n] == kUnset) continue;
    const OpRef ref{rank, Lane::Collective, i};
    if (const auto before = graph_.endedBefore(Lane::Compute, ref)) addEdge(node(*before), n);
    if (c.kind[i] == OpKind::AR)
      if (const auto k = graph_.stepIndex(c.step[i])) addEdge(barrierOf_[*k], n);
    // The first compute op of the rank's step that starts at or after its end.
    const auto k = graph_.stepIndex(c.step[i]);
    if (!k) continue;
    for (std::size_t j : graph_.ops(rank, *k))
      if (compute.start[j] >= c.end[i]) {
        addEdge(n, node({rank, Lane::Compute, j}));
        break;
      }
  }
}

// On a rank the op that ended last before an op began holds it back, and so does any op that
// ran beside that one (an overlapped unit's shorter half, stretched past the longer).
void SlackGraph::addRankOrder(int rank, std::size_t k) {
  const auto ops = graph_.ops(rank, k);
  const OpColumns& c = run_.ranks[rank].lane(Lane::Compute);
  for (std::size_t pos = 0; pos < ops.size(); ++pos) {
    const std::size_t i = ops[pos];
    const std::int32_t n = node({rank, Lane::Compute, i});
    if (pos + 1 < ops.size() && c.start[ops[pos + 1]] == c.start[i])
      partner_[n] = node({rank, Lane::Compute, ops[pos + 1]});
    if (pos > 0 && c.start[ops[pos - 1]] == c.start[i])
      partner_[n] = node({rank, Lane::Compute, ops[pos - 1]});
    const auto before = graph_.previousOnRank({rank, Lane::Compute, i});
    if (!before) continue;
    addEdge(node(*before), n);
    for (std::size_t back = pos; back-- > 0 && pos - back <= 4;) {
      const std::size_t q = ops[back];
      if (q != before->index && c.end[q] <= c.start[i] && c.end[q] > c.start[before->index] &&
          c.start[q] < c.end[before->index])
        addEdge(node({rank, Lane::Compute, q}), n);
    }
  }
}

// Successors before predecessors: a reverse topological order (Kahn's, from the ops nothing
// waits for). Time alone cannot order it: a send and its receive of no duration end together.
// Ops left on a cycle (an imported trace's odd timestamps) follow, later ends first.
std::vector<std::int32_t> SlackGraph::reverseTopologicalOrder(
    const std::vector<std::int32_t>& succBegin) const {
  const auto count = static_cast<std::int32_t>(refs_.size());
  const std::vector<std::int32_t>& begin = succBegin;
  std::vector<std::int32_t> pending(static_cast<std::size_t>(count));
  std::vector<std::int32_t> predBegin(static_cast<std::size_t>(count) + 1, 0), pred(edges_.size());
  for (const auto& [from, to] : edges_)
    ++predBegin[static_cast<std::size_t>(to) + 1];
  std::partial_sum(predBegin.begin(), predBegin.end(), predBegin.begin());
  std::vector<std::int32_t> predFill(predBegin.begin(), predBegin.end() - 1);
  for (const auto& [from, to] : edges_)
    pred[static_cast<std::size_t>(predFill[to]++)] = from;
  std::vector<std::int32_t> order;
  order.reserve(static_cast<std::size_t>(count));
  for (std::int32_t n = 0; n < count; ++n) {
    pending[n] = begin[n + 1] - begin[n];
    if (pending[n] == 0) order.push_back(n);
  }
  for (std::size_t head = 0; head < order.size(); ++head) {
    const std::int32_t n = order[head];
    for (std::int32_t e = predBegin[n]; e < predBegin[n + 1]; ++e)
      if (--pending[pred[static_cast<std::size_t>(e)]] == 0)
        order.push_back(pred[static_cast<std::size_t>(e)]);
  }
  if (order.size() < static_cast<std::size_t>(count)) {
    std::vector<std::int32_t> rest;
    for (std::int32_t n = 0; n < count; ++n)
      if (pending[n] > 0) rest.push_back(n);
    std::sort(rest.begin(), rest.end(), [&](std::int32_t a, std::int32_t b) {
      return end(a) != end(b) ? end(a) > end(b) : start(a) > start(b);
    });
    order.insert(order.end(), rest.begin(), rest.end());
  }
  return order;
}

OpSlackTable SlackGraph::solve() const {
  const auto count = static_cast<std::int32_t>(refs_.size());
  // Successors in CSR form.
  std::vector<std::int32_t> begin(static_cast<std::size_t>(count) + 1, 0), succ(edges_.size());
  for (const auto& [from, to] : edges_)
    ++begin[static_cast<std::size_t>(from) + 1];
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  std::vector<std::int32_t> fill(begin.begin(), begin.end() - 1);
  for (const auto& [from, to] : edges_)
    succ[static_cast<std::size_t>(fill[from]++)] = to;
  const std::vector<std::int32_t> order = reverseTopologicalOrder(begin);
  std::vector<std::int64_t> latestEnd(static_cast<std::size_t>(count), kUnset);
  auto latestStart = [&](std::int32_t n) {
    std::int64_t ls = latestEnd[n] - (end(n) - start(n));
    if (const std::int32_t p = partner_[n]; p != kNoNode && latestEnd[p] != kUnset)
      ls = std::min(ls, latestEnd[p] - (end(p) - start(p)));
    return ls;
  };
  for (const std::int32_t n : order) {
    if (stepEnd_[n] == kUnset) continue;
    std::int64_t lf = std::max(stepEnd_[n], end(n));
    // (A barrier's and a collective's own successors bound them like any op's.)
    for (std::int32_t e = begin[n]; e < begin[n + 1]; ++e) {
      const std::int32_t s = succ[static_cast<std::size_t>(e)];
      if (latestEnd[s] == kUnset) continue;
      // A receive ends its transit after its send: the send may end as much later as the
      // receive may; anything else may end by the time its successor must start.
      const bool transit = !isBarrier(s) && !isBarrier(n) && refs_[s].lane == Lane::Recv &&
                           refs_[n].lane == Lane::Send;
      lf = std::min(lf, transit ? latestEnd[s] - (end(s) - end(n)) : latestStart(s));
    }
    latestEnd[n] = lf;
  }
  OpSlackTable table;
  table.compute.resize(run_.ranks.size());
  for (std::size_t r = 0; r < run_.ranks.size(); ++r) {
    const OpColumns& c = run_.ranks[r].lane(Lane::Compute);
    auto& out = table.compute[r];
    out.assign(c.size(), kNoSlack);
    for (std::size_t i = 0; i < c.size(); ++i) {
      const std::int32_t n = base_[r][0] + static_cast<std::int32_t>(i);
      if (latestEnd[n] == kUnset) continue;
      out[i] = std::max<std::int64_t>(0, latestEnd[n] - c.end[i]);
      if (c.stage[i] < 0) continue;
      const auto key = std::make_pair(static_cast<int>(c.stage[i]), c.kind[i]);
      const auto it = table.leastByStageKind.find(key);
      if (it == table.leastByStageKind.end() || out[i] < it->second)
        table.leastByStageKind[key] = out[i];
    }
  }
  return table;
}

}  // namespace

OpSlackTable opSlack(const StepGraph& graph) {
  return SlackGraph(graph).solve();
}

}  // namespace ps::trace
