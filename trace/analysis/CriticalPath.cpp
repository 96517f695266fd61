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

// Of two candidates, the one that ended later (what the op waited for last); the first on a tie.
std::optional<OpRef> later(const RunTrace& run, std::optional<OpRef> a, std::optional<OpRef> b) {
  if (!a || !a->valid()) return b;
  if (!b || !b->valid()) return a;
  return endOf(run, *b) > endOf(run, *a) ? b : a;
}

// What `op` waited for last. A compute op: its latest input or the op before it on its rank; a
// receive: its send; a send: the compute that produced its data or the send before it on the
// link; a collective: the compute and the collective before it on its rank, and for an all-reduce
// the step's gradients (the optimizer's rule). Every op but a receive may also have waited for a
// collective of its own rank that ended later still (the all-reduce before an optimizer step,
// the fetch before a forward, an all-to-all on the stream or holding a producer's output). A
// copy of a collective towards another rank may have waited for that rank's collectives.
std::optional<OpRef> heldBy(const StepGraph& g, const OpRef& op) {
  const RunTrace& run = g.run();
  std::optional<OpRef> held;
  switch (op.lane) {
    case Lane::Compute: {
      const auto wait = g.latestInput(op);
      const auto prev = g.previousOnRank(op);
      held = wait && (!prev || wait->readyNs > endOf(run, *prev)) ? wait->input : prev;
      break;
    }
    case Lane::Recv:
      return g.relations().matchingTransfer(op);
    case Lane::Send:
      for (const OpRef& in : g.relations().inputs(op))
        held = later(run, held, in);
      held = later(run, held, g.previousOnLink(op));
      break;
    case Lane::Collective: {
      const OpColumns& c = run.ranks[op.rank].lane(op.lane);
      if (c.kind[op.index] == OpKind::AR)
        if (const auto k = g.stepIndex(c.step[op.index]))
          if (const auto grads = g.gradientsDone(op.rank, *k);
              grads && grads->readyNs <= c.start[op.index])
            held = grads->input;
      held = later(run, held, g.endedBefore(Lane::Compute, op));
      // A shard's copy towards a fetching rank (NestPipe) starts when that rank's fetch stages
      // are done: its collectives, on the peer.
      if (c.peer[op.index] >= 0)
        held = later(
            run, held,
            g.endedBy(Lane::Collective, c.peer[op.index], c.step[op.index], c.start[op.index]));
      break;
    }
    default:
      return std::nullopt;
  }
  return later(run, held, g.endedBefore(Lane::Collective, op));
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
  for (std::optional<OpRef> cur = last; cur && cur->valid() && budget-- > 0;) {
    path.ops.push_back(*cur);
    cur = heldBy(g, *cur);
    if (cur && run.ranks[cur->rank].lane(cur->lane).step[cur->index] != path.step) break;
  }
  std::reverse(path.ops.begin(), path.ops.end());
  // From the step's first compute start at the earliest (DESIGN §4's span): a fetch the first
  // forward waited for may begin before it.
  path.lengthNs = satSub(lastEnd, std::max(startOf(run, path.ops.front()), g.extent(k).start));
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
