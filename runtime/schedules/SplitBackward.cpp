#include "runtime/schedules/SplitBackward.h"

#include <cstdint>
#include <deque>
#include <limits>

namespace ps::runtime {
namespace {

const std::string kFlag = "--split-backward";
constexpr std::int64_t kNotYet = std::numeric_limits<std::int64_t>::max();

Status checkSplittable(const Plan& plan) {
  if (plan.splitBackward)
    return Error{kFlag + ": " + plan.schedule +
                 " splits its backward into I and W already (give it without the flag)"};
  if (plan.versioning == WeightVersioning::Synchronous && plan.steps != 1)
    return Error{kFlag + ": " + plan.schedule + " is already repeated over its steps"};
  for (const auto& program : plan.programs)
    for (const Action& a : program) {
      if (a.overlapNext)
        return Error{kFlag + ": " + plan.schedule + " overlaps pairs of ops, which the split " +
                     "would have to break"};
      if (a.kind != OpKind::F && a.kind != OpKind::B && a.kind != OpKind::OPT)
        return Error{kFlag + ": " + plan.schedule + " has " + actionLabel(a) +
                     ", not only F, B and OPT"};
    }
  return {};
}

// Unit-time replay (F = I = W = 1, free links) of every rank's F/I sequence, in order: a rank
// whose next F or I is not ready runs its oldest pending W instead, or idles.
class BubbleFiller {
 public:
  BubbleFiller(const Plan& plan, int maxDeferredW)
      : plan_(plan),
        maxDeferred_(maxDeferredW > 0 ? static_cast<std::size_t>(maxDeferredW) : SIZE_MAX),
        fEnd_(cells(plan), kNotYet),
        iEnd_(cells(plan), kNotYet),
        next_(static_cast<std::size_t>(plan.numRanks), 0),
        pendingW_(static_cast<std::size_t>(plan.numRanks)),
        out_(static_cast<std::size_t>(plan.numRanks)) {
    for (int s = 0; s < plan.numStages; ++s) {
      preds_.push_back(plan.predecessors(s));
      succs_.push_back(plan.successors(s));
    }
    for (const auto& program : plan.programs) {
      std::vector<Action> order;
      for (Action a : program) {
        if (a.kind == OpKind::OPT) continue;
        if (a.kind == OpKind::B) a.kind = OpKind::I;
        order.push_back(a);
      }
      sequence_.push_back(std::move(order));
    }
  }

  Result<std::vector<std::vector<Action>>> run() {
    std::size_t left = 0;
    for (const auto& s : sequence_)
      left += 2 * s.size();  // each F/I, and a W per I
    for (auto& s : sequence_)
      for (const Action& a : s)
        if (a.kind == OpKind::F) left -= 1;
    for (std::int64_t t = 0; left > 0; ++t) {
      bool started = false;
      for (int r = 0; r < plan_.numRanks; ++r) {
        auto& seq = sequence_[r];
        std::size_t& k = next_[r];
        const bool full = pendingW_[r].size() >= maxDeferred_;  // the bound: W first
        if (!full && k < seq.size() && ready(seq[k], t)) {
          start(r, seq[k], t);
          if (seq[k].kind == OpKind::I) pendingW_[r].push_back(seq[k]);
          ++k;
        } else if (!pendingW_[r].empty()) {
          Action w = pendingW_[r].front();
          pendingW_[r].pop_front();
          w.kind = OpKind::W;
          start(r, w, t);
        } else {
          continue;
        }
        started = true;
        --left;
      }
      if (!started && !runningAt(t))
        return Error{kFlag + ": " + plan_.schedule + ": its order waits for an op that never runs"};
    }
    return std::move(out_);
  }

 private:
  static std::size_t cells(const Plan& plan) {
    return static_cast<std::size_t>(plan.numStages) * plan.numMicrobatches();
  }
  std::size_t at(int stage, int mb) const {
    return static_cast<std::size_t>(stage) * plan_.numMicrobatches() + mb;
  }
  bool ready(const Action& a, std::int64_t t) const {
    if (a.kind == OpKind::F) {
      for (int p : preds_[a.stage])
        if (fEnd_[at(p, a.microbatch)] > t) return false;
      const int slice = plan_.microbatches[a.microbatch].sliceOf;
      return slice < 0 || fEnd_[at(a.stage, slice)] <= t;
    }
    if (fEnd_[at(a.stage, a.microbatch)] > t) return false;
    for (int s : succs_[a.stage])
      if (iEnd_[at(s, a.microbatch)] > t) return false;
    return true;
  }
  void start(int rank, const Action& a, std::int64_t t) {
    if (a.kind == OpKind::F) fEnd_[at(a.stage, a.microbatch)] = t + 1;
    if (a.kind == OpKind::I) iEnd_[at(a.stage, a.microbatch)] = t + 1;
    lastEnd_ = std::max(lastEnd_, t + 1);
    out_[rank].push_back(a);
  }
  bool runningAt(std::int64_t t) const { return lastEnd_ > t; }

  const Plan& plan_;
  std::size_t maxDeferred_;
  std::vector<std::vector<int>> preds_, succs_;
  std::vector<std::int64_t> fEnd_, iEnd_;  // [stage · M + mb], kNotYet until started
  std::vector<std::vector<Action>> sequence_;
  std::vector<std::size_t> next_;
  std::vector<std::deque<Action>> pendingW_;
  std::vector<std::vector<Action>> out_;
  std::int64_t lastEnd_ = 0;
};

}  // namespace

// An asynchronous plan (PipeDream and its weight versions) has no flush whose bubbles could take
// the W: each backward becomes its I and, right after it, its W, still before anything else of
// the rank and before its update. The input gradient leaves for the stage before without waiting
// for the weight gradient (LayerPipe's intra-layer half inside its inter-layer pipeline).
Plan splitInPlace(const Plan& plan) {
  Plan out = plan;
  out.splitBackward = true;
  for (auto& program : out.programs) {
    std::vector<Action> split;
    split.reserve(program.size() + program.size() / 2);
    for (Action a : program) {
      if (a.kind != OpKind::B) {
        split.push_back(a);
        continue;
      }
      a.kind = OpKind::I;
      split.push_back(a);
      a.kind = OpKind::W;
      split.push_back(a);
    }
    program = std::move(split);
  }
  return out;
}

Result<Plan> splitBackwardIntoBubbles(const Plan& plan, int maxDeferredW) {
  PS_TRY(checkSplittable(plan));
  if (maxDeferredW < 0)
    return Error{"--max-deferred-w " + std::to_string(maxDeferredW) +
                 ": expected 0 (no bound) "
                 "or more"};
  if (plan.versioning != WeightVersioning::Synchronous) {
    if (maxDeferredW > 0)
      return Error{"--max-deferred-w " + std::to_string(maxDeferredW) + ": " + plan.schedule +
                   " is asynchronous: each W runs right after its I (nothing to bound)"};
    return splitInPlace(plan);
  }
  auto programs = BubbleFiller(plan, maxDeferredW).run();
  if (!programs) return std::move(programs).takeError();
  Plan out = plan;
  out.splitBackward = true;
  for (int r = 0; r < plan.numRanks; ++r) {
    const bool opt = !plan.programs[r].empty() && plan.programs[r].back().kind == OpKind::OPT;
    out.programs[r] = std::move((*programs)[r]);
    if (opt) out.programs[r].push_back(Action{OpKind::OPT, -1, -1, 0});
  }
  return out;
}

}  // namespace ps::runtime
