#include "trace/analysis/CriticalPath.h"

#include <algorithm>
#include <limits>

#include "trace/analysis/Saturating.h"

namespace ps::trace {
namespace {

std::int64_t endOf(const RunTrace& run, const OpRef& op) {
  return run.ranks[op.rank].lane(op.lane).end[op.index];
}
std::int64_t startOf(const RunTrace& run, const OpRef& op) {
  return run.ranks[op.rank].lane(op.lane).start[op.index];
}

// The op before `op` on its rank in the same step (the ops are in start order).
std::optional<OpRef> previousOnRank(const StepGraph& g, const OpRef& op, std::size_t k) {
  const auto ops = g.ops(op.rank, k);
  const auto it = std::find(ops.begin(), ops.end(), op.index);
  if (it == ops.begin() || it == ops.end()) return std::nullopt;
  // The latest-ending earlier op held the rank (an imported lane may overlap itself).
  const OpColumns& c = g.run().ranks[op.rank].lane(Lane::Compute);
  std::size_t best = *(it - 1);
  for (auto j = ops.begin(); j != it; ++j)
    if (c.end[*j] > c.end[best]) best = *j;
  return OpRef{op.rank, Lane::Compute, best};
}

// The previous send on the same link (lane and peer): a send queues behind it.
std::optional<OpRef> previousOnLink(const RunTrace& run, const OpRef& send) {
  const OpColumns& c = run.ranks[send.rank].lane(send.lane);
  for (std::size_t j = send.index; j-- > 0;)
    if (c.peer[j] == c.peer[send.index]) return OpRef{send.rank, send.lane, j};
  return std::nullopt;
}

// Of two candidates, the one that ended later (what the op waited for last).
OpRef later(const RunTrace& run, std::optional<OpRef> a, std::optional<OpRef> b) {
  if (!a) return b ? *b : OpRef{};
  if (!b) return *a;
  return endOf(run, *b) > endOf(run, *a) ? *b : *a;
}

// What `op` waited for last: a compute op its latest input or the op before it on its rank; a
// receive its send; a send the compute that produced its data or the send before it on the link.
OpRef heldBy(const StepGraph& g, const OpRef& op, std::size_t k) {
  const RunTrace& run = g.run();
  switch (op.lane) {
    case Lane::Compute: {
      const auto wait = g.latestInput(op);
      const auto prev = previousOnRank(g, op, k);
      if (wait && (!prev || wait->readyNs > endOf(run, *prev))) return wait->input;
      return prev ? *prev : OpRef{};
    }
    case Lane::Recv: {
      const auto send = g.relations().matchingTransfer(op);
      return send ? *send : OpRef{};
    }
    case Lane::Send: {
      std::optional<OpRef> producer;
      for (const OpRef& in : g.relations().inputs(op))
        producer = later(run, producer, in);
      return later(run, producer, previousOnLink(run, op));
    }
    default:
      return {};
  }
}

}  // namespace

std::optional<CriticalPath> criticalPath(const StepGraph& g, std::size_t k) {
  const RunTrace& run = g.run();
  OpRef last;
  std::int64_t lastEnd = std::numeric_limits<std::int64_t>::min();
  for (std::size_t r = 0; r < run.ranks.size(); ++r)
    for (std::size_t i : g.ops(static_cast<int>(r), k)) {
      const std::int64_t e = run.ranks[r].lane(Lane::Compute).end[i];
      if (e > lastEnd) {
        lastEnd = e;
        last = {static_cast<int>(r), Lane::Compute, i};
      }
    }
  if (!last.valid()) return std::nullopt;
  CriticalPath path;
  path.step = g.steps()[k];
  // Each hop goes to an op that ends no later: bound the walk by the op count all the same.
  std::size_t budget = run.opCount() + 1;
  for (OpRef cur = last; cur.valid() && budget-- > 0;) {
    path.ops.push_back(cur);
    cur = heldBy(g, cur, k);
    if (cur.valid() && run.ranks[cur.rank].lane(cur.lane).step[cur.index] != path.step) break;
  }
  std::reverse(path.ops.begin(), path.ops.end());
  path.lengthNs = satSub(lastEnd, startOf(run, path.ops.front()));
  return path;
}

std::optional<CriticalPath> longestStepCriticalPath(const StepGraph& g) {
  std::optional<std::size_t> longest;
  for (std::size_t k = 0; k < g.steps().size(); ++k)
    if (!longest || g.extent(k).span() > g.extent(*longest).span()) longest = k;
  if (!longest) return std::nullopt;
  return criticalPath(g, *longest);
}

}  // namespace ps::trace
