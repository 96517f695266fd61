#include "trace/analysis/BubbleAttribution.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>

#include "trace/analysis/CommWaits.h"
#include "trace/analysis/OrderWaits.h"
#include "trace/analysis/PresentRanks.h"
#include "trace/analysis/Saturating.h"

namespace ps::trace {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// For each compute op, the most work any rank on the chain of ops that held it had in its step:
// the op's own rank, then through whatever it waited for last (its latest input when that ended
// after the rank's previous op, else that previous op). Ops are visited in start order over all
// ranks, so what an op waited for has been visited before it.
class ChainLoads {
 public:
  explicit ChainLoads(const StepGraph& g) : g_(g), load_(g.run().ranks.size()) {
    const RunTrace& run = g.run();
    prev_.resize(run.ranks.size());
    std::vector<std::tuple<std::int64_t, int, std::size_t>> order;
    for (std::size_t r = 0; r < run.ranks.size(); ++r) {
      const OpColumns& c = run.ranks[r].lane(Lane::Compute);
      load_[r].assign(c.size(), -1);
      prev_[r].assign(c.size(), kNone);
      for (std::size_t k = 0; k < g.steps().size(); ++k) {
        std::size_t last = kNone;
        for (std::size_t i : g.ops(static_cast<int>(r), k)) {
          prev_[r][i] = last;
          last = i;
        }
      }
      for (std::size_t i = 0; i < c.size(); ++i)
        order.emplace_back(c.start[i], static_cast<int>(r), i);
    }
    std::sort(order.begin(), order.end());
    for (const auto& [start, r, i] : order)
      load_[r][i] = visit({r, Lane::Compute, i});
  }

  // The chain's load of a compute op (its own rank's when it was not visited).
  std::int64_t of(const OpRef& op) const {
    if (!op.valid() || op.lane != Lane::Compute) return 0;
    const std::int64_t v = load_[op.rank][op.index];
    return v >= 0 ? v : ownLoad(op);
  }

 private:
  std::int64_t ownLoad(const OpRef& op) const {
    const auto k = g_.stepIndex(g_.run().ranks[op.rank].lane(Lane::Compute).step[op.index]);
    return k ? g_.load(op.rank, *k) : 0;
  }

  std::int64_t visit(const OpRef& op) const {
    const OpColumns& c = g_.run().ranks[op.rank].lane(Lane::Compute);
    const std::size_t prev = prev_[op.rank][op.index];
    const std::int64_t prevEnd =
        prev == kNone ? std::numeric_limits<std::int64_t>::min() : c.end[prev];
    std::int64_t held = 0;
    const auto wait = g_.latestInput(op);
    if (wait && wait->readyNs > prevEnd && wait->producer.valid())
      held = of(wait->producer);
    else if (prev != kNone)
      held = of({op.rank, Lane::Compute, prev});
    return std::max(ownLoad(op), held);
  }

  const StepGraph& g_;
  std::vector<std::vector<std::int64_t>> load_;
  std::vector<std::vector<std::size_t>> prev_;  // previous op of the same step on the rank
};

class Attributor {
 public:
  Attributor(const StepGraph& g, BubbleAttribution& out)
      : g_(g), chains_(g), comm_(g.run()), readyLater_(g), out_(out) {}

  void rankStep(int r, std::size_t k) {
    const StepGraph::Extent& ext = g_.extent(k);
    const OpColumns& c = g_.run().ranks[r].lane(Lane::Compute);
    const auto ops = g_.ops(r, k);
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
    constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
    firstPipe_ = kMax;
    lastPipe_ = kMin;
    for (std::size_t i : ops)
      if (isPipelineCompute(c.kind[i])) {
        firstPipe_ = std::min(firstPipe_, c.start[i]);
        lastPipe_ = std::max(lastPipe_, c.end[i]);
      }
    r_ = r;
    k_ = k;
    step_ = g_.steps()[k];
    readyLater_.rankStep(r, k);
    // The complement of the union of the step's ops within the span, gap by gap.
    std::int64_t cursor = ext.start;
    for (std::size_t pos = 0; pos < ops.size(); ++pos) {
      const std::size_t i = ops[pos];
      if (c.start[i] > cursor) gap(cursor, c.start[i], {r, Lane::Compute, i}, pos);
      cursor = std::max(cursor, c.end[i]);
    }
    if (ext.end > cursor) gap(cursor, ext.end, {}, ops.size());
  }

 private:
  void add(std::int64_t s, std::int64_t e, IdleCause cause, OpRef waited = {}, OpRef before = {}) {
    if (e <= s) return;
    // Inside the pipeline, a wait from the time a later op was ready is the order's; not a
    // collective's, which may hold the rank's own stream (a serial all-to-all or fetch).
    const bool orderable = cause == IdleCause::Dependency || cause == IdleCause::Imbalance ||
                           cause == IdleCause::Transfer || cause == IdleCause::Other;
    if (order_ && orderable && e > order_->at) {
      const std::int64_t split = std::max(s, order_->at);
      if (split > s) add(s, split, cause, waited, before);
      add(split, e, IdleCause::Order, order_->op, before);
      return;
    }
    const std::int64_t ns = satSub(e, s);
    out_.ranks[r_][cause] = satAdd(out_.ranks[r_][cause], ns);
    out_.parts[r_].push_back({step_, s, e, cause, waited, before});
  }

  void gap(std::int64_t a, std::int64_t b, const OpRef& next, std::size_t pos) {
    if (firstPipe_ > lastPipe_) {  // no pipeline op in the step: nothing to explain it by
      add(a, b, IdleCause::Other, {}, next);
      return;
    }
    // In time order: warm-up, inside the pipeline, drain, barrier.
    add(a, std::min(b, firstPipe_), IdleCause::Warmup, {}, next);
    const std::int64_t m0 = std::max(a, firstPipe_), m1 = std::min(b, lastPipe_);
    if (m1 > m0) {
      if (next.valid()) order_ = readyLater_.during(m0, m1, pos);
      inside(m0, m1, next);
      order_.reset();
    }
    // After its last pipeline op the rank may be exchanging its last op's tokens or all-reducing
    // its gradients (the optimizer waits for both): collective while its lane is busy; the
    // drain up to the step's last pipeline op and the barrier after, where it is not.
    const std::int64_t pipelineEnd = g_.extent(k_).pipelineEnd;
    const std::int64_t tail = std::max(a, lastPipe_);
    comm_.split(r_, tail, b, [&](std::int64_t s, std::int64_t e, bool busy) {
      if (busy) return add(s, e, IdleCause::Collective, {}, next);
      add(s, std::min(e, std::max(s, pipelineEnd)), IdleCause::Drain);
      add(std::max(s, pipelineEnd), e, IdleCause::Barrier, {}, next);
    });
  }

  // A gap between the rank's first and last pipeline op, ended by `next`.
  void inside(std::int64_t m0, std::int64_t m1, const OpRef& next) {
    const auto wait = next.valid() ? g_.latestInput(next) : std::nullopt;
    std::int64_t cursor = m0;
    if (wait && wait->readyNs > m0) {
      const std::int64_t ready = std::min(wait->readyNs, m1);
      const std::int64_t producerEnd = std::clamp(wait->producerEndNs, m0, ready);
      const OpRef producer = wait->producer.valid() ? wait->producer : wait->input;
      const double own = static_cast<double>(g_.load(r_, k_));
      const bool slower = static_cast<double>(chains_.of(producer)) > own * kSlowerBy;
      add(m0, producerEnd, slower ? IdleCause::Imbalance : IdleCause::Dependency, producer, next);
      // The producer's all-to-all held its output before it could travel.
      const std::int64_t exchanged =
          std::clamp(comm_.endBefore(g_.run(), producer, ready), producerEnd, ready);
      add(producerEnd, exchanged, IdleCause::Collective, producer, next);
      add(exchanged, ready, IdleCause::Transfer, wait->input, next);
      cursor = ready;
    }
    if (cursor >= m1) return;
    if (comm_.empty()) {
      add(cursor, m1, IdleCause::Other, {}, next);
      return;
    }
    // The op's own fetch, then whatever the rank's busy collective lane covers.
    const std::int64_t fetched = std::clamp(comm_.endBefore(g_.run(), next, m1), cursor, m1);
    add(cursor, fetched, IdleCause::Collective, {}, next);
    comm_.split(r_, fetched, m1, [&](std::int64_t s, std::int64_t e, bool busy) {
      add(s, e, busy ? IdleCause::Collective : IdleCause::Other, {}, next);
    });
  }

  const StepGraph& g_;
  ChainLoads chains_;
  CommWaits comm_;
  ReadyLater readyLater_;
  std::optional<ReadyLater::Ready> order_;  // set while a gap inside the pipeline is split
  BubbleAttribution& out_;
  int r_ = 0, step_ = 0;
  std::size_t k_ = 0;
  std::int64_t firstPipe_ = 0, lastPipe_ = 0;
};

}  // namespace

std::string_view idleCauseLabel(IdleCause cause) {
  switch (cause) {
    case IdleCause::Warmup:
      return "warm-up";
    case IdleCause::Drain:
      return "drain";
    case IdleCause::Dependency:
      return "dependency";
    case IdleCause::Transfer:
      return "transfer";
    case IdleCause::Imbalance:
      return "imbalance";
    case IdleCause::Barrier:
      return "barrier";
    case IdleCause::Collective:
      return "collective";
    case IdleCause::Order:
      return "order";
    case IdleCause::Other:
      break;
  }
  return "other";
}

std::string_view idleCauseJsonKey(IdleCause cause) {
  switch (cause) {
    case IdleCause::Warmup:
      return "warmup_ns";
    case IdleCause::Drain:
      return "drain_ns";
    case IdleCause::Dependency:
      return "dependency_ns";
    case IdleCause::Transfer:
      return "transfer_ns";
    case IdleCause::Imbalance:
      return "imbalance_ns";
    case IdleCause::Barrier:
      return "barrier_ns";
    case IdleCause::Collective:
      return "collective_ns";
    case IdleCause::Order:
      return "order_ns";
    case IdleCause::Other:
      break;
  }
  return "other_ns";
}

std::int64_t BubbleBreakdown::total() const {
  std::int64_t sum = 0;
  for (std::int64_t v : ns)
    sum = satAdd(sum, v);
  return sum;
}

BubbleBreakdown& BubbleBreakdown::operator+=(const BubbleBreakdown& other) {
  for (int i = 0; i < kIdleCauseCount; ++i)
    ns[i] = satAdd(ns[i], other.ns[i]);
  return *this;
}

BubbleAttribution attributeBubbles(const StepGraph& graph) {
  BubbleAttribution out;
  const std::size_t R = graph.run().ranks.size();
  out.ranks.resize(R);
  out.parts.resize(R);
  out.present = presentRankMask(graph.run());
  out.rankCount =
      static_cast<std::size_t>(std::count(out.present.begin(), out.present.end(), true));
  Attributor attributor(graph, out);
  for (std::size_t k = 0; k < graph.steps().size(); ++k)
    out.spanSumNs = satAdd(out.spanSumNs, graph.extent(k).span());
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t k = 0; out.present[r] && k < graph.steps().size(); ++k)
      attributor.rankStep(static_cast<int>(r), k);
  for (const auto& b : out.ranks)
    out.run += b;
  return out;
}

}  // namespace ps::trace
