#include "trace/analysis/RunExplanation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "trace/analysis/Saturating.h"
#include "trace/analysis/StepGraph.h"

namespace ps::trace {
namespace {

std::vector<std::int64_t> workPerRank(const RunTrace& run) {
  std::vector<std::int64_t> work(run.ranks.size(), 0);
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const OpColumns& c = run.ranks[r].lane(Lane::Compute);
    for (std::size_t i = 0; i < c.size(); ++i)
      if (isPipelineCompute(c.kind[i])) work[r] = satAdd(work[r], satSub(c.end[i], c.start[i]));
  }
  return work;
}

std::string format(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

}  // namespace

double RunExplanation::points(IdleCause cause) const {
  const double of = static_cast<double>(bubbles.spanSumNs) *
                    static_cast<double>(std::max<std::size_t>(1, bubbles.rankCount));
  return of > 0 ? 100.0 * static_cast<double>(bubbles.run[cause]) / of : 0.0;
}

RunExplanation explainRun(const RunTrace& run) {
  const StepGraph graph(run);
  RunExplanation out;
  out.bubbles = attributeBubbles(graph);
  out.path = longestStepCriticalPath(graph);
  if (out.path) {
    RunExplanation::Path p{out.path->step, out.path->lengthNs, {}};
    p.ops.reserve(out.path->ops.size());
    for (const OpRef& ref : out.path->ops) {
      const OpColumns& c = run.ranks[ref.rank].lane(ref.lane);
      p.ops.push_back({ref.rank, c.kind[ref.index], c.stage[ref.index], c.microbatch[ref.index],
                       c.start[ref.index], c.end[ref.index]});
    }
    out.criticalPath = std::move(p);
  }
  out.rankWorkNs = workPerRank(run);
  out.slack = opSlack(graph);
  for (const OrderMove& m : adviseOrderMoves(graph, out.bubbles)) {
    auto label = [&run](const OpRef& op) {
      const OpColumns& c = run.ranks[op.rank].lane(op.lane);
      return pathOpLabel({op.rank, c.kind[op.index], c.stage[op.index], c.microbatch[op.index],
                          c.start[op.index], c.end[op.index]});
    };
    out.orderFixes.push_back({m, label(m.move), label(m.before)});
  }
  for (std::size_t r = 0; r < out.bubbles.parts.size(); ++r)
    for (const IdlePart& part : out.bubbles.parts[r]) {
      if (part.cause != IdleCause::Transfer || !part.waitedFor.valid()) continue;
      const OpColumns& c = run.ranks[part.waitedFor.rank].lane(part.waitedFor.lane);
      const int peer = c.peer[part.waitedFor.index];
      auto& ns = out.transferWaitByLink[{peer, static_cast<int>(r)}];
      ns = satAdd(ns, part.end - part.start);
    }
  return out;
}

std::string pathOpLabel(const PathOp& op) {
  std::string kind(opKindName(op.kind));
  if (op.stage < 0 || op.microbatch < 0) return kind;
  return std::to_string(op.stage) + kind + std::to_string(op.microbatch);
}

std::vector<std::string> paperGapLines(const RunExplanation& why, double paperBubble,
                                       double measuredBubble) {
  std::vector<std::string> lines;
  constexpr double kShown = 0.01;  // points
  const double imbalance = why.points(IdleCause::Imbalance);
  if (imbalance >= kShown && !why.rankWorkNs.empty()) {
    // Over the ranks present only (an empty slot below a stray rank number has no work).
    std::size_t lo = why.rankWorkNs.size(), hi = lo;
    for (std::size_t r = 0; r < why.rankWorkNs.size(); ++r) {
      if (r < why.bubbles.present.size() && !why.bubbles.present[r]) continue;
      if (lo == why.rankWorkNs.size() || why.rankWorkNs[r] < why.rankWorkNs[lo]) lo = r;
      if (hi == why.rankWorkNs.size() || why.rankWorkNs[r] > why.rankWorkNs[hi]) hi = r;
    }
    if (lo < why.rankWorkNs.size()) {
      const double ratio = why.rankWorkNs[lo] > 0 ? static_cast<double>(why.rankWorkNs[hi]) /
                                                        static_cast<double>(why.rankWorkNs[lo])
                                                  : 0.0;
      lines.push_back(format("+%.2f pts imbalance: rank %d has %.2fx the work of rank %d",
                             imbalance, static_cast<int>(hi), ratio, static_cast<int>(lo)));
    }
  }
  const double transfer = why.points(IdleCause::Transfer);
  if (transfer >= kShown) {
    std::string line = format("+%.2f pts transfer waits", transfer);
    const auto most =
        std::max_element(why.transferWaitByLink.begin(), why.transferWaitByLink.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (most != why.transferWaitByLink.end())
      line += format(", most on %d -> %d", most->first.first, most->first.second);
    lines.push_back(line);
  }
  const double barrier = why.points(IdleCause::Barrier);
  if (barrier >= kShown)
    lines.push_back(format("+%.2f pts optimizer barrier: waiting for other ranks' OPT", barrier));
  const double collective = why.points(IdleCause::Collective);
  if (collective >= kShown)
    lines.push_back(
        format("+%.2f pts collective waits (all-reduce, all-to-all, embedding fetch)", collective));
  const double order = why.points(IdleCause::Order);
  if (order >= kShown)
    lines.push_back(
        format("+%.2f pts order waits: a rank waited while another of its ops was ready", order));
  const double other = why.points(IdleCause::Other);
  if (other >= kShown)
    lines.push_back(format("+%.2f pts not explained by the recorded dependencies", other));
  // What is left is the pipeline's own fill, drain and dependency waits, against the formula's.
  const double shape = 100.0 * (measuredBubble - paperBubble) - imbalance - transfer - barrier -
                       collective - order - other;
  if (std::fabs(shape) >= kShown)
    lines.push_back(
        format("%+.2f pts fill, drain and dependency waits (costs other than "
               "F = t, B = 2t, equal stages)",
               shape));
  return lines;
}

}  // namespace ps::trace
