#include "trace/analysis/StepGraph.h"

#include <algorithm>
#include <limits>

#include "trace/analysis/Saturating.h"

namespace ps::trace {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

bool isGrad(OpKind k) {
  return k == OpKind::B || k == OpKind::W;
}

// Per op of one rank-step's compute ops (in start order), the op before it that ended last: the
// one just before when nothing earlier ended later, else the first of the latest-ending.
void heldBeforeOf(const OpColumns& c, std::span<const std::size_t> ops,
                  std::vector<std::size_t>& out) {
  std::size_t best = kNone;
  for (std::size_t pos = 0; pos < ops.size(); ++pos) {
    const std::size_t i = ops[pos];
    if (pos > 0) out[i] = c.end[ops[pos - 1]] >= c.end[best] ? ops[pos - 1] : best;
    if (best == kNone || c.end[i] > c.end[best]) best = i;
  }
}

// Per send, the send before it to the same peer (kNone for the first).
std::vector<std::size_t> linkBeforeOf(const OpColumns& c) {
  std::vector<std::size_t> byPeer(c.size());
  for (std::size_t i = 0; i < c.size(); ++i)
    byPeer[i] = i;
  std::stable_sort(byPeer.begin(), byPeer.end(),
                   [&](std::size_t a, std::size_t b) { return c.peer[a] < c.peer[b]; });
  std::vector<std::size_t> out(c.size(), kNone);
  for (std::size_t k = 1; k < byPeer.size(); ++k)
    if (c.peer[byPeer[k]] == c.peer[byPeer[k - 1]]) out[byPeer[k]] = byPeer[k - 1];
  return out;
}

}  // namespace

std::vector<int> distinctComputeSteps(const RunTrace& run) {
  std::vector<int> steps;
  for (const auto& r : run.ranks) {
    const auto& lane = r.lane(Lane::Compute);
    steps.insert(steps.end(), lane.step.begin(), lane.step.end());
  }
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

std::int64_t StepGraph::Extent::span() const {
  return satSub(end, start);
}

StepGraph::StepGraph(const RunTrace& run)
    : run_(run),
      relations_(run),
      steps_(distinctComputeSteps(run)),
      extents_(steps_.size()),
      stepLastGrad_(steps_.size()),
      stepLastGradEnd_(steps_.size(), std::numeric_limits<std::int64_t>::min()),
      order_(run.ranks.size()),
      rankSteps_(run.ranks.size()),
      heldBefore_(run.ranks.size()),
      linkBefore_(run.ranks.size()),
      collectiveEnds_(run, Lane::Collective) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  std::vector<std::int64_t> pipelineEnd(steps_.size(), kMin);
  for (auto& e : extents_) {
    e.start = kMax;
    e.end = kMin;
  }
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const OpColumns& c = run.ranks[r].lane(Lane::Compute);
    auto& order = order_[r];
    order.resize(c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
      order[i] = i;
    // The lane is sorted by start: a stable sort by step keeps start order within each step.
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return c.step[a] < c.step[b]; });
    heldBefore_[r].assign(c.size(), kNone);
    for (std::size_t pos = 0; pos < order.size();) {
      const std::int32_t step = c.step[order[pos]];
      RankStep rs;
      rs.k = *stepIndex(step);
      rs.begin = pos;
      rs.lastGradEnd = kMin;
      Extent& ext = extents_[rs.k];
      for (; pos < order.size() && c.step[order[pos]] == step; ++pos) {
        const std::size_t i = order[pos];
        ext.start = std::min(ext.start, c.start[i]);
        ext.end = std::max(ext.end, c.end[i]);
        if (isPipelineCompute(c.kind[i])) {
          rs.load = satAdd(rs.load, satSub(c.end[i], c.start[i]));
          pipelineEnd[rs.k] = std::max(pipelineEnd[rs.k], c.end[i]);
        }
        if (isGrad(c.kind[i]) && c.end[i] > rs.lastGradEnd) {
          rs.lastGradEnd = c.end[i];
          rs.lastGrad = {static_cast<int>(r), Lane::Compute, i};
        }
      }
      rs.end = pos;
      if (rs.lastGrad.valid() && rs.lastGradEnd > stepLastGradEnd_[rs.k]) {
        stepLastGradEnd_[rs.k] = rs.lastGradEnd;
        stepLastGrad_[rs.k] = rs.lastGrad;
      }
      heldBeforeOf(c, std::span<const std::size_t>(order).subspan(rs.begin, rs.end - rs.begin),
                   heldBefore_[r]);
      rankSteps_[r].push_back(rs);
    }
    linkBefore_[r] = linkBeforeOf(run.ranks[r].lane(Lane::Send));
  }
  if (!collectiveEnds_.empty()) computeEnds_.emplace(run, Lane::Compute);
  for (std::size_t k = 0; k < extents_.size(); ++k)
    extents_[k].pipelineEnd = pipelineEnd[k] == kMin ? extents_[k].start : pipelineEnd[k];
}

std::optional<std::size_t> StepGraph::stepIndex(int step) const {
  const auto it = std::lower_bound(steps_.begin(), steps_.end(), step);
  if (it == steps_.end() || *it != step) return std::nullopt;
  return static_cast<std::size_t>(it - steps_.begin());
}

const StepGraph::RankStep* StepGraph::rankStep(int rank, std::size_t k) const {
  if (rank < 0 || static_cast<std::size_t>(rank) >= rankSteps_.size()) return nullptr;
  const auto& list = rankSteps_[rank];
  const auto it =
      std::lower_bound(list.begin(), list.end(), k,
                       [](const RankStep& rs, std::size_t want) { return rs.k < want; });
  return it != list.end() && it->k == k ? &*it : nullptr;
}

std::span<const std::size_t> StepGraph::ops(int rank, std::size_t k) const {
  const RankStep* rs = rankStep(rank, k);
  if (rs == nullptr) return {};
  return std::span<const std::size_t>(order_[rank]).subspan(rs->begin, rs->end - rs->begin);
}

std::int64_t StepGraph::load(int rank, std::size_t k) const {
  const RankStep* rs = rankStep(rank, k);
  return rs ? rs->load : 0;
}

std::optional<StepGraph::Wait> StepGraph::latestInput(const OpRef& op) const {
  if (!op.valid() || op.lane != Lane::Compute ||
      static_cast<std::size_t>(op.rank) >= run_.ranks.size())
    return std::nullopt;
  const OpColumns& c = run_.ranks[op.rank].lane(Lane::Compute);
  if (op.index >= c.size()) return std::nullopt;
  if (c.kind[op.index] == OpKind::OPT) {
    // The rule's inputs are every gradient op of the step: the latest is known per step.
    const auto k = stepIndex(c.step[op.index]);
    return k ? gradientsDone(op.rank, *k) : std::nullopt;
  }
  // The first input that ended last.
  std::optional<OpRef> best;
  std::int64_t bestReady = 0;
  for (const OpRef& in : relations_.inputs(op)) {
    const std::int64_t ready = run_.ranks[in.rank].lane(in.lane).end[in.index];
    if (best && ready <= bestReady) continue;
    best = in;
    bestReady = ready;
  }
  if (!best) return std::nullopt;
  return waitOn(*best);
}

std::vector<StepGraph::Wait> StepGraph::inputWaits(const OpRef& op) const {
  std::vector<Wait> out;
  if (!op.valid() || op.lane != Lane::Compute ||
      static_cast<std::size_t>(op.rank) >= run_.ranks.size())
    return out;
  const OpColumns& c = run_.ranks[op.rank].lane(Lane::Compute);
  if (op.index >= c.size() || c.kind[op.index] == OpKind::OPT) return out;
  for (const OpRef& in : relations_.inputs(op))
    out.push_back(waitOn(in));
  return out;
}

StepGraph::Wait StepGraph::waitOn(const OpRef& in) const {
  const OpColumns& ic = run_.ranks[in.rank].lane(in.lane);
  const std::int64_t ready = ic.end[in.index];
  Wait w{in, ready, in, ready};
  if (in.lane == Lane::Compute) return w;
  // A receive: the compute behind it is the input of the matching send.
  w.producer = {};
  w.producerEndNs = ic.start[in.index];
  if (const auto send = relations_.matchingTransfer(in)) {
    w.producerEndNs = run_.ranks[send->rank].lane(send->lane).start[send->index];
    for (const OpRef& p : relations_.inputs(*send)) {
      const std::int64_t pend = run_.ranks[p.rank].lane(p.lane).end[p.index];
      if (!w.producer.valid() || pend > w.producerEndNs) {
        w.producer = p;
        w.producerEndNs = pend;
      }
    }
  }
  return w;
}

std::optional<StepGraph::Wait> StepGraph::gradientsDone(int rank, std::size_t k) const {
  OpRef last = stepLastGrad_[k];
  std::int64_t end = stepLastGradEnd_[k];
  if (relations_.optimizerPerRank()) {
    const RankStep* rs = rankStep(rank, k);
    last = rs ? rs->lastGrad : OpRef{};
    end = rs ? rs->lastGradEnd : 0;
  }
  if (!last.valid()) return std::nullopt;
  return Wait{last, end, last, end};
}

std::optional<OpRef> StepGraph::previousOnRank(const OpRef& op) const {
  if (!op.valid() || op.lane != Lane::Compute ||
      static_cast<std::size_t>(op.rank) >= heldBefore_.size())
    return std::nullopt;
  const auto& held = heldBefore_[static_cast<std::size_t>(op.rank)];
  if (op.index >= held.size() || held[op.index] == kNone) return std::nullopt;
  return OpRef{op.rank, Lane::Compute, held[op.index]};
}

std::optional<OpRef> StepGraph::previousOnLink(const OpRef& send) const {
  if (!send.valid() || send.lane != Lane::Send ||
      static_cast<std::size_t>(send.rank) >= linkBefore_.size())
    return std::nullopt;
  const auto& before = linkBefore_[static_cast<std::size_t>(send.rank)];
  if (send.index >= before.size() || before[send.index] == kNone) return std::nullopt;
  return OpRef{send.rank, Lane::Send, before[send.index]};
}

std::optional<OpRef> StepGraph::endedBefore(Lane lane, const OpRef& op) const {
  if (!op.valid() || static_cast<std::size_t>(op.rank) >= run_.ranks.size()) return std::nullopt;
  const OpColumns& own = run_.ranks[op.rank].lane(op.lane);
  if (op.index >= own.size()) return std::nullopt;
  return endedBy(lane, op.rank, own.step[op.index], own.start[op.index]);
}

std::optional<OpRef> StepGraph::endedBy(Lane lane, int rank, std::int32_t step,
                                        std::int64_t t) const {
  const EndOrder* ends = lane == Lane::Collective                ? &collectiveEnds_
                         : lane == Lane::Compute && computeEnds_ ? &*computeEnds_
                                                                 : nullptr;
  if (ends == nullptr || ends->empty() || rank < 0 ||
      static_cast<std::size_t>(rank) >= run_.ranks.size())
    return std::nullopt;
  return ends->lastEndedBy(rank, step, t);
}

}  // namespace ps::trace
