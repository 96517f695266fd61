#pragma once
// The checks buildOpGraph runs and the index it builds them on (internal to runtime/plan). The
// fast paths allocate nothing; messages are built only once something is wrong.

#include <cstdint>
#include <vector>

#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime::graph {

// Dense slot of the five per-(stage, micro-batch) kinds; -1 for the others.
inline int kindSlot(OpKind k) {
  switch (k) {
    case OpKind::F:
      return 0;
    case OpKind::B:
      return 1;
    case OpKind::I:
      return 2;
    case OpKind::W:
      return 3;
    case OpKind::R:
      return 4;
    case OpKind::FILL:
      return 5;  // only FILLs that feed a stage (DiffusionPipe), by the step they feed
    default:
      return -1;
  }
}
constexpr int kSlots = 6;

// Node id of every (step, kind, stage, micro-batch) action; -1 where absent. One table per kind,
// allocated when the kind first appears (a plan without I, W or R pays nothing for them), laid
// out [step][stage][micro-batch], so one step's cells of one kind are one contiguous run.
class ActionIndex {
 public:
  explicit ActionIndex(const Plan& p)
      : S_(static_cast<std::size_t>(p.numStages)),
        M_(static_cast<std::size_t>(p.numMicrobatches())),
        cells_(static_cast<std::size_t>(p.steps) * S_ * M_) {}
  std::int32_t& at(OpKind k, int stage, int mb, int step) {
    auto& table = tables_[kindSlot(k)];
    if (table.empty()) table.assign(cells_, -1);
    return table[offset(stage, mb, step)];
  }
  std::int32_t find(OpKind k, int stage, int mb, int step) const {
    const int slot = kindSlot(k);
    if (slot < 0 || tables_[slot].empty()) return -1;
    return tables_[slot][offset(stage, mb, step)];
  }
  // The S·M cells of one (step, kind slot), indexed stage·M + micro-batch; nullptr when the kind
  // never appears (every cell -1).
  const std::int32_t* cells(int step, int slot) const {
    return tables_[slot].empty() ? nullptr : tables_[slot].data() + offset(0, 0, step);
  }

 private:
  std::size_t offset(int stage, int mb, int step) const {
    return (static_cast<std::size_t>(step) * S_ + static_cast<std::size_t>(stage)) * M_ +
           static_cast<std::size_t>(mb);
  }
  std::size_t S_, M_, cells_;
  std::vector<std::int32_t> tables_[kSlots];
};

// Sizes, placement, micro-batch replicas, stage graph; the plan must be indexable.
Status checkPlanShape(const Plan& p);

// Whether `a` may appear in rank `rank`'s compute program (step, kind, stage, micro-batch,
// placement); actionError says why not.
inline bool actionFits(const Plan& p, int rank, const Action& a) {
  if (a.step < 0 || a.step >= p.steps || !trace::isCompute(a.kind)) return false;
  if (a.kind == OpKind::OPT) return true;
  if (a.kind == OpKind::FILL) {  // on any rank; one that feeds a stage names a real op
    if (a.stage < 0 && a.microbatch < 0 && a.ahead == 0) return true;
    return a.stage >= 0 && a.stage < p.numStages && a.microbatch >= 0 &&
           a.microbatch < p.numMicrobatches() && a.ahead >= 0 && a.step + a.ahead < p.steps;
  }
  if (a.stage < 0 || a.stage >= p.numStages) return false;
  if (a.microbatch < 0 || a.microbatch >= p.numMicrobatches()) return false;
  return p.rankOf(a.stage, a.microbatch) == rank;
}
Error actionError(const Plan& p, int rank, const Action& a);

// Every stage of every micro-batch of every step has F, and B or I+W (and R under recompute),
// and never both B and I/W.
Status checkEveryOpPresent(const Plan& p, const ActionIndex& index);

// " (step k)" in multi-step plans, "" otherwise.
std::string stepSuffix(const Plan& plan, int step);

}  // namespace ps::runtime::graph
